import { routeAlertsJobId } from '@hashwatch/queues';
import { syncSources } from './sources/sync-sources';
import { useScannerFixture } from './test-support/scanner-fixture';

/** What X publishes as created_at for a post created at `ms`: whole seconds. */
const publishedAt = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();

// Each test uses its own tags and handles, so sources of earlier tests never interfere.
describe('scanner matching rules against the X simulator', () => {
  const fx = useScannerFixture({ searchIncludesRetweets: true });

  const queriesSince = (count: number) =>
    fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).slice(count).map((entry) => String(entry.query.query));

  async function totalPostsRead(): Promise<number> {
    const { rows } = await fx.pool().query<{ total: string }>('SELECT COALESCE(sum(upstream_posts_read), 0)::text AS total FROM usage_periods');
    return Number(rows[0]?.total);
  }

  async function tick() {
    await fx.makeDue();
    return fx.scanner().runTick();
  }

  it('stores a post whose hashtag or cashtag entity holds the tag, case-insensitively, and not a bare word', async () => {
    const user = await fx.account();
    await fx.track(user, 'Gold');
    const hashtag = fx.sim.state.injectPost({ author: 'hana', text: 'buying #GOLD today' });
    const cashtag = fx.sim.state.injectPost({ author: 'hana', text: 'long $gold now' });
    fx.sim.state.injectPost({ author: 'hana', text: 'gold is shiny' });
    fx.sim.state.injectPost({ author: 'hana', text: '#goldfish are not gold' });

    await tick();
    const items = await fx.items(user);
    expect(items.map((item) => item.x_post_id)).toEqual([hashtag.id, cashtag.id]);
    expect(items[0]).toMatchObject({
      type: 'hashtag', hashtag: 'Gold', account: null, sources: ['#gold'], author: '@hana', author_name: 'hana',
      text: 'buying #GOLD today', url: `https://x.com/hana/status/${hashtag.id}`, engagement_tracked: false,
    });
    expect(items[0]?.posted_at.toISOString()).toBe(publishedAt(hashtag.createdAt));
  });

  it('stores X\'s created_at (whole seconds) as posted_at, and uses the id\'s millisecond only for "published after the track"', async () => {
    const user = await fx.account();
    const second = Math.floor(Date.now() / 1000) * 1000 - 5000;
    await fx.track(user, 'Cobalt', { createdAt: new Date(second + 500) });
    fx.sim.state.injectPost({ author: 'hana', text: 'early #cobalt', created_at: new Date(second + 300).toISOString() });
    const late = fx.sim.state.injectPost({ author: 'hana', text: 'late #cobalt', created_at: new Date(second + 900).toISOString() });

    await tick();
    const items = await fx.items(user);
    expect(items.map((item) => item.x_post_id)).toEqual([late.id]);
    expect(items[0]?.posted_at.toISOString()).toBe(new Date(second).toISOString());
    const { rows } = await fx.pool().query<{ posted_at: Date }>('SELECT posted_at FROM x_posts WHERE id = $1', [late.id]);
    expect(rows[0]?.posted_at.toISOString()).toBe(new Date(second).toISOString());
  });

  it('shows per-track health after a scan: last_scanned_at, last_post_at of the newest match, scan_error null', async () => {
    const user = await fx.account();
    const busy = await fx.track(user, 'quartz');
    const quiet = await fx.track(user, 'basalt');
    fx.sim.state.injectPost({ author: 'hana', text: 'first #quartz' });
    const newest = fx.sim.state.injectPost({ author: 'hana', text: 'second #quartz' });
    const before = Date.now();
    await tick();
    const { rows } = await fx.pool().query<{ id: string; last_scanned_at: Date | null; last_post_at: Date | null; scan_error: string | null }>(
      'SELECT id, last_scanned_at, last_post_at, scan_error FROM tracks WHERE id = ANY($1)',
      [[busy, quiet]],
    );
    const health = new Map(rows.map((row) => [row.id, row]));
    expect(health.get(busy)).toMatchObject({ last_post_at: new Date(publishedAt(newest.createdAt)), scan_error: null });
    expect(health.get(busy)?.last_scanned_at?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    // Scanned, nothing found: the monitor is alive, there is just nothing to report.
    expect(health.get(quiet)).toMatchObject({ last_post_at: null, scan_error: null, last_scanned_at: expect.any(Date) });
  });

  it('applies the track language filter after the fetch', async () => {
    const user = await fx.account();
    await fx.track(user, 'silver', { lang: 'en' });
    const english = fx.sim.state.injectPost({ author: 'ivo', text: '#silver rally', lang: 'en' });
    fx.sim.state.injectPost({ author: 'ivo', text: '#silver rallye', lang: 'fr' });
    await tick();
    expect((await fx.items(user)).map((item) => item.x_post_id)).toEqual([english.id]);
  });

  it('stores retweets only for tracks with exclude_retweets false', async () => {
    const keeps = await fx.account();
    const drops = await fx.account();
    await fx.track(keeps, 'copper', { excludeRetweets: false });
    await fx.track(drops, 'copper', { excludeRetweets: true });
    const original = fx.sim.state.injectPost({ author: 'jan', text: 'watch #copper' });
    fx.sim.state.addRetweets(original.id, { usernames: ['kim'] });
    const retweet = fx.sim.state.store.latest(1)[0];
    await tick();

    const kept = await fx.items(keeps);
    expect(kept.map((item) => item.x_post_id)).toEqual([original.id, retweet?.id]);
    expect(kept[1]).toMatchObject({ author: '@kim', text: expect.stringMatching(/^RT @jan: /) });
    expect((await fx.items(drops)).map((item) => item.x_post_id)).toEqual([original.id]);
  });

  it('stores replies of a tracked account only when exclude_replies is false', async () => {
    const keeps = await fx.account();
    const drops = await fx.account();
    fx.sim.state.createUser({ username: 'lena', name: 'Lena L' });
    await fx.accountTrack(keeps, 'Lena', { excludeReplies: false });
    await fx.accountTrack(drops, 'lena', { excludeReplies: true });
    const root = fx.sim.state.injectPost({ author: 'mo', text: 'hello' });
    const own = fx.sim.state.injectPost({ author: 'lena', text: 'my own post' });
    fx.sim.state.addReply(root.id, { author: 'lena', text: 'a reply' });
    const reply = fx.sim.state.store.latest(1)[0];
    await tick();

    expect((await fx.items(keeps)).map((item) => item.x_post_id)).toEqual([own.id, reply?.id]);
    expect((await fx.items(drops)).map((item) => item.x_post_id)).toEqual([own.id]);
    expect((await fx.items(keeps))[0]).toMatchObject({ type: 'account', hashtag: null, account: 'Lena', sources: ['@lena'], author: '@lena', author_name: 'Lena L' });
  });

  it('never stores a post published before the track was created', async () => {
    const user = await fx.account();
    const old = fx.sim.state.injectPost({ author: 'nia', text: 'early #nickel', created_at: new Date(Date.now() - 3_600_000).toISOString() });
    await fx.track(user, 'nickel', { createdAt: new Date(Date.now() - 60_000) });
    const fresh = fx.sim.state.injectPost({ author: 'nia', text: 'now #nickel' });
    await tick();
    const ids = (await fx.items(user)).map((item) => item.x_post_id);
    expect(ids).toEqual([fresh.id]);
    expect(ids).not.toContain(old.id);
  });

  it('stores one item, one alert and one quota unit when two sources of an account match one post in a cycle', async () => {
    const user = await fx.account();
    const accountId = await fx.accountTrack(user, 'Olga', { createdAt: new Date(Date.now() - 5000) });
    await fx.track(user, 'zinc', { trackEngagement: true, trackLikes: false });
    fx.sim.state.createUser({ username: 'olga', name: 'Olga O' });
    const post = fx.sim.state.injectPost({ author: 'olga', text: 'my #zinc thesis' });
    await tick();

    const items = await fx.items(user);
    expect(items).toHaveLength(1);
    // The account track is older, so it is the first source; engagement comes from the first source tracking it.
    expect(items[0]).toMatchObject({ type: 'account', account: 'Olga', hashtag: null, sources: ['@olga', '#zinc'], engagement_tracked: true, track_likes: false });
    expect(await fx.usage(user)).toMatchObject({ alerts_used: 1 });
    const alert = { feedItemId: items[0]?.id as string, userId: user };
    expect((await fx.alertJobs()).filter((job) => job.userId === user)).toEqual([{ id: routeAlertsJobId([alert]), ...alert }]);
    const { rows } = await fx.pool().query('SELECT id, author_username FROM x_posts WHERE id = $1', [post.id]);
    expect(rows).toEqual([{ id: post.id, author_username: 'olga' }]);
    const { rows: health } = await fx.pool().query('SELECT last_scanned_at, last_post_at, scan_error FROM account_tracks WHERE id = $1', [accountId]);
    expect(health[0]).toMatchObject({ last_scanned_at: expect.any(Date), scan_error: null });
    expect(health[0]?.last_post_at.toISOString()).toBe(publishedAt(post.createdAt));
  });

  it('merges a second source matching in a later cycle into the existing item, with no new item, alert or quota unit', async () => {
    const user = await fx.account();
    await fx.track(user, 'tin');
    await fx.accountTrack(user, 'pia');
    fx.sim.state.createUser({ username: 'pia' });
    await syncSources(fx.pool());
    await fx.pool().query(`UPDATE source_cursors SET next_scan_at = now() + interval '1 hour' WHERE source_key = 'user:pia'`);
    fx.sim.state.injectPost({ author: 'pia', text: 'about #tin' });
    await fx.scanner().runTick();
    const [first] = await fx.items(user);
    expect(first?.sources).toEqual(['#tin']);
    const alertedBefore = await fx.alertedItemIds();

    await tick();
    const items = await fx.items(user);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ id: first?.id, type: 'hashtag', hashtag: 'tin', sources: ['#tin', '@pia'], detected_at: first?.detected_at });
    expect(await fx.usage(user)).toMatchObject({ alerts_used: 1 });
    expect(await fx.alertedItemIds()).toEqual(alertedBefore);
  });

  it('serves two accounts tracking one tag with one upstream query and stores an item for each', async () => {
    const first = await fx.account();
    const second = await fx.account({ plan: 'starter' });
    await fx.track(first, 'cobalt');
    await fx.track(second, 'COBALT', { lang: 'en' });
    fx.sim.state.injectPost({ author: 'quin', text: 'the #cobalt story', lang: 'en' });
    const before = fx.searchRequests();
    const readBefore = await totalPostsRead();
    await tick();

    expect(fx.searchRequests() - before).toBe(1);
    const query = fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).at(-1)?.query.query;
    expect(String(query).split('#cobalt ').length - 1).toBe(1);
    expect(await fx.items(first)).toHaveLength(1);
    expect(await fx.items(second)).toMatchObject([{ hashtag: 'COBALT', sources: ['#cobalt'] }]);
    // The read is shared: what X billed for the query is split evenly across the sources it served (the query
    // also carries the tags of this file's earlier tests), #cobalt's part evenly across both accounts, none of
    // it counted twice or lost.
    const billed = fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).slice(before).reduce((sum, entry) => sum + entry.postsServed, 0);
    expect(billed).toBeGreaterThanOrEqual(1);
    expect((await totalPostsRead()) - readBefore).toBeCloseTo(billed, 2);
    expect((await fx.usage(first))?.upstream_posts_read).toBeGreaterThan(0);
    expect((await fx.usage(first))?.upstream_posts_read).toBeCloseTo((await fx.usage(second))?.upstream_posts_read as number, 4);
  });

  it('follows next_token until exhausted when a cycle has more matches than one page, and then starts from the newest', async () => {
    const user = await fx.account();
    await fx.track(user, 'lithium');
    await tick();
    const posts = Array.from({ length: 250 }, (_, i) => fx.sim.state.injectPost({ author: `u${i % 7}`, text: `#lithium note ${i}` }));
    const before = fx.searchRequests();
    await tick();
    expect(fx.searchRequests() - before).toBe(3);
    const items = await fx.items(user);
    expect(items.map((item) => item.x_post_id)).toEqual(posts.map((post) => post.id));
    const { rows } = await fx.pool().query(`SELECT since_id FROM source_cursors WHERE source_key = 'tag:lithium'`);
    expect(rows[0]?.since_id).toBe(posts.at(-1)?.id);

    await tick();
    expect(await fx.items(user)).toHaveLength(250);
    const last = fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).at(-1);
    expect(last?.query.since_id).toBe(posts.at(-1)?.id);
  });

  it('stops matching a deleted track and keeps the items it stored', async () => {
    const user = await fx.account();
    const trackId = await fx.track(user, 'uranium');
    fx.sim.state.injectPost({ author: 'rob', text: 'first #uranium' });
    await tick();
    expect(await fx.items(user)).toHaveLength(1);

    await fx.pool().query('DELETE FROM tracks WHERE id = $1', [trackId]);
    fx.sim.state.injectPost({ author: 'rob', text: 'second #uranium' });
    const before = fx.searchRequests();
    await tick();
    expect(await fx.items(user)).toHaveLength(1);
    // Nobody tracks the tag any more: the source is gone and no query asks for it.
    expect(queriesSince(before).filter((query) => query.includes('#uranium'))).toEqual([]);
    const { rowCount } = await fx.pool().query(`SELECT 1 FROM source_cursors WHERE source_key = 'tag:uranium'`);
    expect(rowCount).toBe(0);
  });

  it('stops matching a deleted track while another account still tracks the tag, and keeps the items it stored', async () => {
    const leaver = await fx.account();
    const stayer = await fx.account();
    const trackId = await fx.track(leaver, 'cerium');
    await fx.track(stayer, 'cerium');
    const first = fx.sim.state.injectPost({ author: 'rob', text: 'first #cerium' });
    await tick();
    expect((await fx.items(leaver)).map((item) => item.x_post_id)).toEqual([first.id]);

    await fx.pool().query('DELETE FROM tracks WHERE id = $1', [trackId]);
    const second = fx.sim.state.injectPost({ author: 'rob', text: 'second #cerium' });
    const alertedBefore = await fx.alertedItemIds();
    await tick();
    expect((await fx.items(leaver)).map((item) => item.x_post_id)).toEqual([first.id]);
    expect((await fx.items(stayer)).map((item) => item.x_post_id)).toEqual([first.id, second.id]);
    expect(await fx.usage(leaver)).toMatchObject({ alerts_used: 1 });
    const newlyAlerted = (await fx.alertedItemIds()).filter((id) => !alertedBefore.includes(id));
    expect(newlyAlerted).toEqual([(await fx.items(stayer))[1]?.id]);
  });

  it('does not serve an account whose subscription is not active', async () => {
    const lapsed = await fx.account();
    await fx.track(lapsed, 'radium');
    await fx.pool().query(`UPDATE users SET subscription_status = 'past_due' WHERE id = $1`, [lapsed]);
    fx.sim.state.injectPost({ author: 'sam', text: 'a #radium post' });
    const before = fx.searchRequests();
    await tick();
    expect(queriesSince(before).filter((query) => query.includes('#radium'))).toEqual([]);
    expect(await fx.items(lapsed)).toHaveLength(0);
  });

  it('ignores, for a source, posts at or before its own cursor when a pack reads from an older one', async () => {
    const capped = await fx.account({ alertsLimit: 1 });
    const other = await fx.account();
    await fx.track(capped, 'oak');
    await fx.track(other, 'elm');
    await syncSources(fx.pool());
    await fx.pool().query(`UPDATE source_cursors SET next_scan_at = now() + interval '1 hour' WHERE source_key = 'tag:elm'`);
    const stored = fx.sim.state.injectPost({ author: 'tom', text: '#oak one' });
    fx.sim.state.injectPost({ author: 'tom', text: '#oak two' });
    await fx.scanner().runTick();
    expect((await fx.items(capped)).map((item) => item.x_post_id)).toEqual([stored.id]);

    // More quota now; the next pack holds both tags and reads from elm's older bound, past both oak posts.
    await fx.pool().query('UPDATE users SET alerts_limit = 100 WHERE id = $1', [capped]);
    const before = fx.searchRequests();
    await tick();
    const read = fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).slice(before).find((entry) => String(entry.query.query).includes('#oak'));
    expect(String(read?.query.query)).toContain('#elm');
    expect(BigInt(String(read?.query.since_id))).toBeLessThan(BigInt(stored.id));
    expect((await fx.items(capped)).map((item) => item.x_post_id)).toEqual([stored.id]);
  });
});

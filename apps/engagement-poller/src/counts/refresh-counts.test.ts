import { handles, usePollerFixture } from '../test-support/poller-fixture';

const MINUTE = 60_000;

describe('refreshing counts', () => {
  const f = usePollerFixture();
  const pool = () => f.env.database.db.pool;

  beforeEach(() => f.clock.set(new Date()));

  it('writes the real totals to the tracking item, beyond anything a sample can list', async () => {
    const user = await f.account();
    const post = f.post();
    f.sim.state.addLikes(post.id, { usernames: handles('fan', 3), anonymous: 500 });
    f.sim.state.addRetweets(post.id, { usernames: handles('rt', 2), anonymous: 40 });
    f.sim.state.addReply(post.id, { author: 'replier', text: 'nice' });
    const itemId = await f.detect(user, post);

    await f.poller().runCycle();

    const metrics = f.sim.state.store.post(post.id)?.metrics;
    const item = await f.item(itemId);
    expect({ retweets: item.retweet_count, likes: item.like_count, replies: item.reply_count }).toEqual({
      retweets: metrics?.retweets,
      likes: metrics?.likes,
      replies: metrics?.replies,
    });
    expect(item).toMatchObject({ retweet_count: 42, like_count: 503, reply_count: 1 });
    expect(item.engagement_updated_at).toEqual(f.clock.now());
  });

  it('keeps the counts equal to the simulator as they move, including down', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post();
    const itemId = await f.detect(user, post);
    const poller = f.poller();
    await poller.runCycle();
    expect((await f.item(itemId)).like_count).toBe(0);

    f.sim.state.addLikes(post.id, { anonymous: 7 });
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect((await f.item(itemId)).like_count).toBe(7);

    const simPost = f.sim.state.store.post(post.id);
    if (simPost) simPost.metrics.likes = 5;
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect((await f.item(itemId)).like_count).toBe(5);
  });

  it('polls a post tracked by two accounts with one lookup per refresh, at the faster cadence, and updates both items', async () => {
    const fast = await f.account({ refreshSeconds: 60 });
    const slow = await f.account({ refreshSeconds: 300 });
    const post = f.post();
    f.sim.state.addLikes(post.id, { anonymous: 5 });
    const fastItem = await f.detect(fast, post);
    const slowItem = await f.detect(slow, post);
    const poller = f.poller();
    f.sim.state.requestLog.clear();

    await poller.runCycle();
    const lookups = f.sim.state.requestLog.entries({ endpoint: 'posts_lookup' });
    expect(lookups).toHaveLength(1);
    expect(String(lookups[0]?.query.ids).split(',').filter((id) => id === post.id)).toHaveLength(1);
    expect((await f.item(fastItem)).like_count).toBe(5);
    expect((await f.item(slowItem)).like_count).toBe(5);
    const { rows } = await pool().query('SELECT interval_seconds FROM engagement_states WHERE x_post_id = $1', [post.id]);
    expect(rows[0]).toEqual({ interval_seconds: 60 });

    f.sim.state.addLikes(post.id, { anonymous: 1 });
    f.clock.advance(30_000);
    await poller.runCycle();
    expect(f.requests('posts_lookup')).toBe(1);

    f.clock.advance(30_000);
    await poller.runCycle();
    expect(f.requests('posts_lookup')).toBe(2);
    expect((await f.item(fastItem)).like_count).toBe(6);
    expect((await f.item(slowItem)).like_count).toBe(6);
  });

  it('reads 250 due posts with 3 lookups of up to 100 ids, its parallel batches claiming in turn', async () => {
    const user = await f.account();
    const posts = Array.from({ length: 250 }, (_, i) => f.post(`bulk${i % 7}`));
    for (const post of posts) await f.detect(user, post);
    // Four batches at once (the default), which claim one after another: the last 50 are not split between them.
    const poller = f.poller({ lookupConcurrency: 4 });
    f.sim.state.requestLog.clear();

    const report = await poller.runCycle();

    expect(report.counts.refreshed).toBeGreaterThanOrEqual(250);
    const sizes = f.sim.state.requestLog.entries({ endpoint: 'posts_lookup' }).map((entry) => String(entry.query.ids).split(',').length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(report.counts.refreshed);
    expect(sizes.every((size) => size <= 100)).toBe(true);
    expect(sizes.length).toBe(Math.ceil(report.counts.refreshed / 100));
  });

  it('reads a few due posts with one lookup every cycle, however many batches run at once', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const posts = [f.post(), f.post(), f.post()];
    for (const post of posts) await f.detect(user, post);
    // Only these three are due: the earlier tests' posts (250 of them) would fill batches of their own.
    await pool().query('UPDATE engagement_states SET poll_until = now() WHERE x_post_id <> ALL ($1::text[])', [posts.map((post) => post.id)]);
    const poller = f.poller({ lookupConcurrency: 4 });
    f.sim.state.requestLog.clear();

    // Claiming at once, four batches split the three between two lookups in a few of 200 cycles.
    for (let cycle = 0; cycle < 200; cycle += 1) {
      await poller.runCycle();
      f.clock.advance(MINUTE);
    }

    const lookups = f.sim.state.requestLog.entries({ endpoint: 'posts_lookup' }).map((entry) => String(entry.query.ids).split(',').sort());
    expect(lookups).toEqual(Array.from({ length: 200 }, () => posts.map((post) => post.id).sort()));
  });

  it('keeps a switched-off category at its last count and list, and resumes it at the next refresh after switching it on', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const trackId = await f.track(user, 'eth');
    const post = f.post('carol', 'gm #eth');
    f.sim.state.addLikes(post.id, { usernames: handles('early', 2) });
    f.sim.state.addRetweets(post.id, { usernames: handles('rter', 2) });
    const itemId = await f.detect(user, post, { hashtag: 'eth' });
    const poller = f.poller();
    await poller.runCycle();
    expect(await f.item(itemId)).toMatchObject({ like_count: 2, likers: ['@early0002', '@early0001'], retweet_count: 2 });

    await f.setTrackFlags(trackId, { trackLikes: false });
    f.sim.state.addLikes(post.id, { usernames: handles('late', 3) });
    f.sim.state.addRetweets(post.id, { usernames: handles('rter', 1, 3) });
    f.clock.advance(MINUTE);
    await poller.runCycle();

    const frozen = await f.item(itemId);
    expect(frozen).toMatchObject({ like_count: 2, likers: ['@early0002', '@early0001'], retweet_count: 3, track_likes: false, track_reposts: true });
    expect(frozen.retweeters).toEqual(['@rter0003', '@rter0002', '@rter0001']);
    expect((await f.engagementItems(user, itemId)).filter((e) => e.kind === 'like').map((e) => e.author)).toEqual(['@early0001', '@early0002']);

    await f.setTrackFlags(trackId, { trackLikes: true });
    f.sim.state.addLikes(post.id, { usernames: ['latest'] });
    f.clock.advance(MINUTE);
    await poller.runCycle();
    const resumed = await f.item(itemId);
    expect(resumed).toMatchObject({ like_count: 6, track_likes: true });
    expect(resumed.likers[0]).toBe('@latest');
    expect(resumed.likers).toHaveLength(6);
  });

  it('freezes every category when the source stops tracking engagement or is deleted', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const trackId = await f.track(user, 'sol');
    const post = f.post('dave', 'gm #sol');
    const itemId = await f.detect(user, post, { hashtag: 'sol' });
    const poller = f.poller();
    f.sim.state.addLikes(post.id, { anonymous: 3 });
    await poller.runCycle();
    expect((await f.item(itemId)).like_count).toBe(3);

    await f.setTrackFlags(trackId, { trackEngagement: false });
    f.sim.state.addLikes(post.id, { anonymous: 3 });
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect(await f.item(itemId)).toMatchObject({ like_count: 3, engagement_tracked: true, track_likes: false, track_reposts: false, track_comments: false });

    await pool().query('DELETE FROM tracks WHERE id = $1', [trackId]);
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect((await f.item(itemId)).like_count).toBe(3);
  });

  it("tracks engagement on an account post with the account track's switches, and follows their PATCH at the next refresh", async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const accountTrackId = await f.accountTrack(user, 'Alice', { trackReposts: false });
    const post = f.post('alice', 'just posting');
    f.sim.state.addLikes(post.id, { usernames: handles('al', 2) });
    f.sim.state.addRetweets(post.id, { usernames: handles('ar', 1) });
    const itemId = await f.detect(user, post, { account: 'alice', flags: { trackReposts: false } });
    const poller = f.poller();
    await poller.runCycle();
    expect(await f.item(itemId)).toMatchObject({ type: 'account', like_count: 2, likers: ['@al0002', '@al0001'], retweet_count: 0, retweeters: [], track_reposts: false });
    expect((await f.engagementItems(user, itemId)).map((e) => `${e.kind} ${e.author}`).sort()).toEqual(['like @al0001', 'like @al0002']);

    await f.setAccountTrackFlags(accountTrackId, { trackReposts: true, trackLikes: false });
    f.sim.state.addLikes(post.id, { usernames: handles('al', 1, 3) });
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect(await f.item(itemId)).toMatchObject({ like_count: 2, likers: ['@al0002', '@al0001'], retweet_count: 1, retweeters: ['@ar0001'], track_likes: false, track_reposts: true });
    expect((await f.engagementItems(user, itemId)).map((e) => `${e.kind} ${e.author}`).sort()).toEqual(['like @al0001', 'like @al0002', 'retweet @ar0001']);
  });

  it('takes the switches of the first matching source that tracks engagement when a post matched several', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    await f.track(user, 'bnb', { trackEngagement: false });
    await f.accountTrack(user, 'bea', { trackLikes: false });
    const post = f.post('bea', 'gm #bnb');
    f.sim.state.addLikes(post.id, { anonymous: 4 });
    f.sim.state.addRetweets(post.id, { anonymous: 3 });
    // Found through #bnb first (no engagement there), and through @bea, whose switches apply.
    const itemId = await f.detect(user, post, { hashtag: 'bnb', sources: ['#bnb', '@bea'], flags: { trackLikes: false } });
    await f.poller().runCycle();
    expect(await f.item(itemId)).toMatchObject({ like_count: 0, retweet_count: 3, track_likes: false, track_reposts: true, track_comments: true });
  });

  it('leaves posts detected before engagement tracking was switched on without engagement', async () => {
    const user = await f.account();
    const trackId = await f.track(user, 'ada', { trackEngagement: false });
    const before = f.post('erin', 'gm #ada');
    const beforeItem = await f.detect(user, before, { hashtag: 'ada', flags: { trackEngagement: false } });
    await f.setTrackFlags(trackId, { trackEngagement: true });
    const after = f.post('erin', 'gm again #ada');
    const afterItem = await f.detect(user, after, { hashtag: 'ada' });
    f.sim.state.addLikes(before.id, { anonymous: 4 });
    f.sim.state.addLikes(after.id, { anonymous: 4 });

    await f.poller().runCycle();

    expect(await f.item(beforeItem)).toMatchObject({ engagement_tracked: false, like_count: 0, engagement_updated_at: null });
    expect(await f.item(afterItem)).toMatchObject({ engagement_tracked: true, like_count: 4 });
    const { rows } = await pool().query('SELECT x_post_id FROM engagement_states WHERE x_post_id = ANY($1)', [[before.id, after.id]]);
    expect(rows).toEqual([{ x_post_id: after.id }]);
  });

  it('stops polling a post X no longer has, keeping its last counts', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post();
    f.sim.state.addLikes(post.id, { anonymous: 2 });
    const itemId = await f.detect(user, post);
    const poller = f.poller();
    await poller.runCycle();
    f.sim.state.deletePost(post.id);
    f.clock.advance(MINUTE);
    await poller.runCycle();
    f.sim.state.requestLog.clear();

    f.clock.advance(MINUTE);
    await poller.runCycle();

    expect(f.sim.state.requestLog.entries({ endpoint: 'posts_lookup' }).some((entry) => String(entry.query.ids).split(',').includes(post.id))).toBe(false);
    expect((await f.item(itemId)).like_count).toBe(2);
  });

  it('skips a refresh whose lookup X fails with a 5xx: the post is due again one interval later, not in the same cycle', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const poller = f.poller();
    // The posts of earlier tests are refreshed now, so the next lookup of this cycle's clock is this post's.
    await poller.runCycle();
    const post = f.post();
    f.sim.state.addLikes(post.id, { anonymous: 3 });
    const itemId = await f.detect(user, post);
    const lookupsOfPost = () => f.sim.state.requestLog.entries({ endpoint: 'posts_lookup' }).filter((entry) => String(entry.query.ids).split(',').includes(post.id)).length;
    f.sim.state.requestLog.clear();
    f.sim.state.injectFault({ endpoint: 'posts_lookup', kind: 'internal_error', count: 1 });

    const failed = await poller.runCycle();
    expect(failed.counts.failedPosts).toBe(1);
    expect(lookupsOfPost()).toBe(1);
    expect((await f.item(itemId)).like_count).toBe(0);
    const { rows } = await pool().query<{ next_poll_at: Date }>('SELECT next_poll_at FROM engagement_states WHERE x_post_id = $1', [post.id]);
    expect(rows[0]?.next_poll_at).toEqual(new Date(f.clock.now().getTime() + MINUTE));

    f.clock.advance(30_000);
    await poller.runCycle();
    expect(lookupsOfPost()).toBe(1);

    f.clock.advance(30_000);
    await poller.runCycle();
    expect(lookupsOfPost()).toBe(2);
    expect((await f.item(itemId)).like_count).toBe(3);
  });

  it('leaves every pooled connection committing synchronously after refreshes that committed without waiting for the flush', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const posts = [f.post(), f.post(), f.post()];
    for (const post of posts) {
      f.sim.state.addLikes(post.id, { anonymous: 2 });
      await f.detect(user, post);
    }
    const poller = f.poller({ lookupConcurrency: 3 });
    await poller.runCycle();
    for (const post of posts) f.sim.state.addLikes(post.id, { anonymous: 1 });
    f.clock.advance(MINUTE);
    const report = await poller.runCycle();
    expect(report.counts.changed).toBeGreaterThanOrEqual(3);
    expect(report.counts.itemsWritten).toBeGreaterThanOrEqual(3);

    // Every idle connection of the pool, the ones the refreshes used among them: samples, items and outbox
    // rows committed on them later must wait for the flush.
    const clients = await Promise.all(Array.from({ length: pool().totalCount }, () => pool().connect()));
    try {
      const settings = await Promise.all(clients.map(async (client) => (await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]?.synchronous_commit));
      expect(new Set(settings)).toEqual(new Set(['on']));
    } finally {
      for (const client of clients) client.release();
    }
  });

  it('does not write an item whose engagement did not change', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post();
    f.sim.state.addLikes(post.id, { anonymous: 1 });
    const itemId = await f.detect(user, post);
    const poller = f.poller();
    await poller.runCycle();
    const first = (await f.item(itemId)).engagement_updated_at;

    f.clock.advance(MINUTE);
    const report = await poller.runCycle();

    expect(report.counts.refreshed).toBeGreaterThanOrEqual(1);
    expect((await f.item(itemId)).engagement_updated_at).toEqual(first);
  });

  describe('when X reports no change', () => {
    it('shows a category switched back on at the next refresh', async () => {
      const user = await f.account({ refreshSeconds: 60 });
      const trackId = await f.track(user, 'dot', { trackLikes: false });
      const post = f.post('finn', 'gm #dot');
      f.sim.state.addLikes(post.id, { anonymous: 4 });
      const itemId = await f.detect(user, post, { hashtag: 'dot', flags: { trackLikes: false } });
      const poller = f.poller();
      await poller.runCycle();
      expect(await f.item(itemId)).toMatchObject({ like_count: 0, track_likes: false });

      await f.setTrackFlags(trackId, { trackLikes: true });
      f.clock.advance(MINUTE);
      const report = await poller.runCycle();

      expect(report.changedAccounts).toBe(1);
      expect(await f.item(itemId)).toMatchObject({ like_count: 4, track_likes: true });
    });

    it('gives an account that starts tracking an already polled post its counts at the next refresh', async () => {
      const first = await f.account({ refreshSeconds: 60 });
      const post = f.post('gil', 'gm #btc');
      f.sim.state.addLikes(post.id, { anonymous: 3 });
      await f.detect(first, post);
      const poller = f.poller();
      await poller.runCycle();

      const later = await f.account({ refreshSeconds: 60 });
      const laterItem = await f.detect(later, post);
      f.clock.advance(MINUTE);
      await poller.runCycle();

      expect(await f.item(laterItem)).toMatchObject({ like_count: 3 });
    });

    it('follows a cadence change of the account', async () => {
      const user = await f.account({ refreshSeconds: 300 });
      const post = f.post('hugo', 'gm #btc');
      await f.detect(user, post);
      const poller = f.poller();
      await poller.runCycle();
      const interval = async () => (await pool().query('SELECT interval_seconds FROM engagement_states WHERE x_post_id = $1', [post.id])).rows[0];
      expect(await interval()).toEqual({ interval_seconds: 300 });

      await pool().query('UPDATE users SET engagement_refresh_seconds = 60 WHERE id = $1', [user]);
      f.clock.advance(5 * MINUTE);
      await poller.runCycle();

      expect(await interval()).toEqual({ interval_seconds: 60 });
    });

    it('only reschedules the posts, writing no item', async () => {
      const user = await f.account({ refreshSeconds: 60 });
      const post = f.post('ian', 'gm #btc');
      f.sim.state.addLikes(post.id, { anonymous: 2 });
      const itemId = await f.detect(user, post);
      const poller = f.poller();
      await poller.runCycle();
      const before = await f.item(itemId);

      f.clock.advance(MINUTE);
      const report = await poller.runCycle();

      expect(report.counts).toMatchObject({ changed: 0, full: 0, itemsWritten: 0 });
      expect(await f.item(itemId)).toEqual(before);
      const { rows } = await pool().query('SELECT next_poll_at FROM engagement_states WHERE x_post_id = $1', [post.id]);
      expect(rows[0]).toEqual({ next_poll_at: new Date(f.clock.now().getTime() + MINUTE) });
    });
  });
});

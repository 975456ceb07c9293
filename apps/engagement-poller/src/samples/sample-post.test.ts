import { waitFor } from '@hashwatch/testing';
import { handles, usePollerFixture } from '../test-support/poller-fixture';

const MINUTE = 60_000;

describe('sampling engagers', () => {
  const f = usePollerFixture();
  const pool = () => f.env.database.db.pool;

  beforeEach(async () => {
    f.clock.set(new Date());
    // Posts of earlier tests are settled, so each test's candidates are its own.
    await pool().query('UPDATE engagement_states SET sampled_likes = like_count, sampled_retweets = retweet_count, sampled_replies = reply_count');
  });

  async function alertsUsed(userId: string): Promise<number> {
    const { rows } = await pool().query<{ alerts_used: number }>(
      `SELECT p.alerts_used FROM usage_periods p JOIN users u ON u.id = p.user_id AND p.period_start = u.current_period_start WHERE u.id = $1`,
      [userId],
    );
    return rows[0]?.alerts_used ?? 0;
  }

  it('stores one engagement item per new engager, each carried by a route-alerts job, and nothing for engagers already seen', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post('alice', 'gm #btc');
    f.sim.state.addLikes(post.id, { usernames: handles('liker', 3) });
    f.sim.state.addRetweets(post.id, { usernames: handles('rter', 2) });
    const reply = f.sim.state.addReply(post.id, { author: 'replier', text: 'so true' });
    const itemId = await f.detect(user, post);
    const poller = f.poller();

    const report = await poller.runCycle();

    const items = await f.engagementItems(user, itemId);
    expect(items.map((item) => `${item.kind} ${item.author}`).sort()).toEqual(
      ['like @liker0001', 'like @liker0002', 'like @liker0003', 'reply @replier', 'retweet @rter0001', 'retweet @rter0002'],
    );
    const liker = f.sim.state.store.userByUsername('liker0001');
    const like = items.find((item) => item.author === '@liker0001');
    expect(like).toMatchObject({
      type: 'engagement',
      user_id: user,
      dedupe_key: `e:${post.id}:like:${liker?.id}`,
      author_id: liker?.id,
      author_name: 'liker0001',
      text: 'liked this post',
      url: `https://x.com/alice/status/${post.id}`,
      posted_at: null,
      parent_id: itemId,
      kind: 'like',
      hashtag: 'btc',
      sources: ['#btc'],
      engagement_tracked: false,
    });
    expect(items.find((item) => item.kind === 'retweet')).toMatchObject({ text: 'reposted this post', url: `https://x.com/alice/status/${post.id}`, posted_at: null });
    expect(items.find((item) => item.kind === 'reply')).toMatchObject({
      text: 'so true',
      url: `https://x.com/replier/status/${reply.id}`,
      // X gives created_at in whole seconds.
      posted_at: new Date(Math.floor(reply.createdAt / 1000) * 1000),
    });
    expect(await f.item(itemId)).toMatchObject({
      likers: ['@liker0003', '@liker0002', '@liker0001'],
      retweeters: ['@rter0002', '@rter0001'],
      repliers: ['@replier'],
      like_count: 3,
      retweet_count: 2,
      reply_count: 1,
    });
    expect(await f.alertedItemIds()).toEqual(expect.arrayContaining(items.map((item) => item.id)));
    expect((await pool().query('SELECT 1 FROM outbox_jobs')).rowCount).toBe(0);
    expect(await alertsUsed(user)).toBe(6);
    expect(report.samples.like).toMatchObject({ sampled: 1, newEngagers: 3, stored: 3 });

    // Nothing rose: no sample call at all.
    const samplesBefore = f.requests('liking_users') + f.requests('retweeted_by') + f.requests('search_recent');
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect(f.requests('liking_users') + f.requests('retweeted_by') + f.requests('search_recent')).toBe(samplesBefore);

    // One more liker: one more item.
    f.sim.state.addLikes(post.id, { usernames: ['liker0004'] });
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect((await f.engagementItems(user, itemId)).map((item) => item.author)).toContain('@liker0004');
    expect(await f.engagementItems(user, itemId)).toHaveLength(7);

    // A replayed sample that forgot everything (a crash between X's answer and the commit, say) finds the
    // same engagers "new" again; the dedupe keys store nothing twice and queue nothing twice.
    const jobsBefore = await f.alertedItemIds();
    await pool().query(`UPDATE engagement_states SET sampled_likes = 0, likers = '{}', sampled_retweets = 0, retweeters = '{}' WHERE x_post_id = $1`, [post.id]);
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect(await f.engagementItems(user, itemId)).toHaveLength(7);
    expect(await f.alertedItemIds()).toEqual(jobsBefore);
    expect(await alertsUsed(user)).toBe(7);
  });

  it('caps each sample at 100 handles, newest first, while the counts keep rising past 100', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post('bob', 'big #btc');
    f.sim.state.addLikes(post.id, { usernames: handles('l', 150) });
    f.sim.state.addRetweets(post.id, { usernames: handles('r', 120) });
    const itemId = await f.detect(user, post);
    const poller = f.poller();

    await poller.runCycle();
    let item = await f.item(itemId);
    expect(item).toMatchObject({ like_count: 150, retweet_count: 120 });
    expect(item.likers).toHaveLength(100);
    expect(item.likers[0]).toBe('@l0150');
    expect(item.retweeters).toHaveLength(100);
    expect(item.retweeters[0]).toBe('@r0120');

    f.sim.state.addLikes(post.id, { usernames: handles('l', 30, 151) });
    f.clock.advance(MINUTE);
    await poller.runCycle();
    item = await f.item(itemId);
    expect(item.like_count).toBe(180);
    expect(item.likers).toHaveLength(100);
    expect(item.likers.slice(0, 30)).toEqual(handles('l', 30, 151).reverse().map((h) => `@${h}`));
    // 100 likers seen by the first sample, 30 new ones by the second.
    expect((await f.engagementItems(user, itemId)).filter((e) => e.kind === 'like')).toHaveLength(130);
  });

  it('alerts only accounts whose source has the category on', async () => {
    const withLikes = await f.account();
    const withoutLikes = await f.account();
    const post = f.post('carl', 'gm #btc');
    f.sim.state.addLikes(post.id, { usernames: ['fan1'] });
    const onItem = await f.detect(withLikes, post);
    const offItem = await f.detect(withoutLikes, post, { flags: { trackLikes: false } });

    await f.poller().runCycle();

    expect((await f.engagementItems(withLikes, onItem)).map((e) => e.author)).toEqual(['@fan1']);
    expect(await f.engagementItems(withoutLikes, offItem)).toEqual([]);
    expect(await f.item(offItem)).toMatchObject({ like_count: 0, likers: [] });
  });

  it('turns the first reply of each replying account into one item and ignores replies to replies', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post('dana', 'thread #btc');
    const first = f.sim.state.addReply(post.id, { author: 'talker', text: 'first' });
    f.sim.state.addReply(post.id, { author: 'talker', text: 'second' });
    f.sim.state.addReply(first.id, { author: 'nested', text: 'reply to a reply' });
    const itemId = await f.detect(user, post);
    const poller = f.poller();

    await poller.runCycle();

    expect((await f.engagementItems(user, itemId)).map((e) => [e.author, e.text])).toEqual([['@talker', 'first']]);
    expect(await f.item(itemId)).toMatchObject({ reply_count: 2, repliers: ['@talker'] });

    f.sim.state.addReply(post.id, { author: 'newcomer', text: 'late' });
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect((await f.engagementItems(user, itemId)).map((e) => e.author)).toEqual(['@talker', '@newcomer']);
    // The second sample asked only for replies newer than the first sample saw.
    const searches = f.sim.state.requestLog.entries({ endpoint: 'search_recent' }).filter((entry) => String(entry.query.query).includes(post.id));
    expect(searches.at(-1)?.query.since_id).toBeDefined();
  });

  it('samples an edited post where X puts its engagement: likes and retweets on the newest version, replies to any', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post('erin', 'first take #btc');
    const early = f.sim.state.addReply(post.id, { author: 'early', text: 'to the first version' });
    const edit = f.sim.state.editPost(post.id, { text: 'second take #btc' });
    // Engagement from now on lands on the newest version, as on X.
    f.sim.state.addLikes(post.id, { usernames: handles('fan', 2) });
    const late = f.sim.state.addReply(edit.id, { author: 'late', text: 'to the edit' });
    const itemId = await f.detect(user, post);
    // As the scanner records an edit: the chain on the post's row.
    await f.env.database.db.pool.query(
      `INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at, version_ids, conversation_id) VALUES ($1, '1', 'erin', 'Erin', 'second take #btc', now(), $2, $1)`,
      [post.id, [post.id, edit.id]],
    );

    await f.poller().runCycle();

    const items = await f.engagementItems(user, itemId);
    expect(items.map((item) => `${item.kind} ${item.author}`).sort()).toEqual(['like @fan0001', 'like @fan0002', 'reply @early', 'reply @late']);
    expect(items.filter((item) => item.kind === 'reply').map((item) => item.url).sort()).toEqual([`https://x.com/early/status/${early.id}`, `https://x.com/late/status/${late.id}`].sort());
    expect(await f.item(itemId)).toMatchObject({ like_count: 2, reply_count: 2 });
  });

  it('stores no engagement item beyond the alert quota, counting only what it stored', async () => {
    const user = await f.account({ refreshSeconds: 60, plan: 'starter' });
    await pool().query('UPDATE users SET alerts_limit = 4 WHERE id = $1', [user]);
    const post = f.post('erik', 'gm #btc');
    f.sim.state.addLikes(post.id, { usernames: handles('q', 6) });
    const itemId = await f.detect(user, post);
    expect(await alertsUsed(user)).toBe(0);
    const poller = f.poller();

    const report = await poller.runCycle();

    expect(await f.engagementItems(user, itemId)).toHaveLength(4);
    expect(await alertsUsed(user)).toBe(4);
    expect(report.samples.like).toMatchObject({ stored: 4, droppedForQuota: 2 });
    // Counts and the sample list still follow X: they are not new alerts.
    expect(await f.item(itemId)).toMatchObject({ like_count: 6 });
    expect((await f.item(itemId)).likers).toHaveLength(6);

    f.sim.state.addLikes(post.id, { usernames: handles('q', 2, 7) });
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect(await f.engagementItems(user, itemId)).toHaveLength(4);
    expect(await alertsUsed(user)).toBe(4);
  });

  it('keeps counts fresh while X answers 429 on the sample endpoints, and catches the samples up afterwards', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post('fay', 'gm #btc');
    f.sim.state.addLikes(post.id, { usernames: handles('w', 4) });
    f.sim.state.addRetweets(post.id, { usernames: handles('v', 2) });
    f.sim.state.addReply(post.id, { author: 'u0001', text: 'hi' });
    const itemId = await f.detect(user, post);
    for (const endpoint of ['liking_users', 'retweeted_by', 'search_recent'] as const) {
      f.sim.state.injectFault({ endpoint, kind: 'rate_limited', count: 1 });
    }
    const poller = f.poller();

    const held = await poller.runCycle();

    expect(await f.item(itemId)).toMatchObject({ like_count: 4, retweet_count: 2, reply_count: 1, likers: [], retweeters: [], repliers: [] });
    expect(await f.engagementItems(user, itemId)).toEqual([]);
    expect(held.samples.like?.heldBack).toBe(true);

    // Every replica now waits for the reset X announced (whole seconds, up to 3 s away with this simulator's
    // 2 s window). Wait for exactly that, however long a loaded machine takes to get there; the next cycle
    // samples what the first could not.
    const x = f.xClient();
    await waitFor(async () => {
      const budgets = await Promise.all((['liking_users', 'retweeted_by', 'search_recent'] as const).map((endpoint) => x.readBudget(endpoint)));
      return budgets.every((budget) => budget === null || budget.reset * 1000 < Date.now());
    }, 60_000, 'the sample endpoints reset');
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect(await f.item(itemId)).toMatchObject({ likers: handles('w', 4).reverse().map((h) => `@${h}`), retweeters: ['@v0002', '@v0001'], repliers: ['@u0001'] });
    expect(await f.engagementItems(user, itemId)).toHaveLength(7);
  });

  it('without a user token keeps the like count real and the likers list as it is', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post('gus', 'gm #btc');
    f.sim.state.addLikes(post.id, { usernames: handles('nt', 3) });
    f.sim.state.addRetweets(post.id, { usernames: ['nort'] });
    const itemId = await f.detect(user, post);
    const likingCalls = f.requests('liking_users');

    await f.poller({ userToken: false }).runCycle();

    expect(await f.item(itemId)).toMatchObject({ like_count: 3, likers: [], retweeters: ['@nort'] });
    expect((await f.engagementItems(user, itemId)).map((e) => e.kind)).toEqual(['retweet']);
    expect(f.requests('liking_users')).toBe(likingCalls);
  });

  it('keeps likers sampled while a user token was configured after the token is removed, with the like count still real', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post('gwen', 'gm #btc');
    f.sim.state.addLikes(post.id, { usernames: handles('kt', 2) });
    const itemId = await f.detect(user, post);
    await f.poller().runCycle();
    expect(await f.item(itemId)).toMatchObject({ like_count: 2, likers: ['@kt0002', '@kt0001'] });

    f.sim.state.addLikes(post.id, { usernames: handles('kt', 3, 3) });
    const likingCalls = f.requests('liking_users');
    f.clock.advance(MINUTE);
    await f.poller({ userToken: false }).runCycle();

    expect(await f.item(itemId)).toMatchObject({ like_count: 5, likers: ['@kt0002', '@kt0001'] });
    expect((await f.engagementItems(user, itemId)).map((e) => e.author).sort()).toEqual(['@kt0001', '@kt0002']);
    expect(f.requests('liking_users')).toBe(likingCalls);
  });

  it('spends a small budget on the posts whose count rose most', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const posts = [1, 5, 3, 4, 2].map((likes, i) => {
      const post = f.post('hal', `post ${i} #btc`);
      f.sim.state.addLikes(post.id, { usernames: handles(`p${i}x`, likes) });
      return { post, likes };
    });
    for (const { post } of posts) await f.detect(user, post, { flags: { trackReposts: false, trackComments: false } });
    const tight = { perWindow: 75, windowSeconds: 900, burst: 2 };
    const poller = f.poller({ allowances: { like: tight, retweet: tight, reply: tight } });
    await f.env.redis.del(`${f.env.queuePrefix}:engagement:sample-budget:like`);
    const before = f.requests('liking_users');

    const report = await poller.runCycle();

    expect(f.requests('liking_users') - before).toBe(2);
    expect(report.samples.like).toMatchObject({ candidates: 5, granted: 2, sampled: 2 });
    const sampled = f.sim.state.requestLog.entries({ endpoint: 'liking_users' }).slice(-2).map((entry) => entry.path.split('/')[3]);
    expect(sampled.sort()).toEqual([posts[1]?.post.id, posts[3]?.post.id].sort());
  });

  it('takes the posts of each account in turns, so one account with many rising posts cannot spend the whole budget', async () => {
    const flooder = await f.account({ refreshSeconds: 60 });
    const modest = await f.account({ refreshSeconds: 60 });
    const viral = [12, 14, 10, 13, 11].map((likes, i) => {
      const post = f.post('vic', `viral ${i} #moon`);
      f.sim.state.addLikes(post.id, { usernames: handles(`v${i}y`, likes) });
      return post;
    });
    for (const post of viral) await f.detect(flooder, post, { flags: { trackReposts: false, trackComments: false } });
    const quiet = f.post('quin', 'quiet #calm');
    f.sim.state.addLikes(quiet.id, { usernames: handles('q0z', 1) });
    await f.detect(modest, quiet, { flags: { trackReposts: false, trackComments: false } });
    const tight = { perWindow: 75, windowSeconds: 900, burst: 2 };
    const poller = f.poller({ allowances: { like: tight, retweet: tight, reply: tight } });
    await f.env.redis.del(`${f.env.queuePrefix}:engagement:sample-budget:like`);

    const report = await poller.runCycle();

    expect(report.samples.like).toMatchObject({ candidates: 6, granted: 2, sampled: 2 });
    const sampled = f.sim.state.requestLog.entries({ endpoint: 'liking_users' }).slice(-2).map((entry) => entry.path.split('/')[3]);
    // The modest account's one post and the flooder's fastest riser: first turns of each.
    expect(sampled.sort()).toEqual([quiet.id, viral[1]?.id].sort());
  });

  it('samples one post on demand (the sample-engagement job) within the same budget', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post('ida', 'gm #btc');
    const itemId = await f.detect(user, post);
    const poller = f.poller();
    await poller.runCycle();
    f.sim.state.addRetweets(post.id, { usernames: ['late_rt'] });
    // As a refresh would have recorded it (without running a cycle, whose sampling would take it first).
    await pool().query('UPDATE engagement_states SET retweet_count = 1 WHERE x_post_id = $1', [post.id]);

    expect(await poller.sampleNow(post.id)).toEqual({ like: 'skipped', retweet: 'sampled', reply: 'skipped' });
    expect((await f.engagementItems(user, itemId)).map((e) => e.author)).toEqual(['@late_rt']);
    expect(await poller.sampleNow(post.id)).toEqual({ like: 'skipped', retweet: 'skipped', reply: 'skipped' });
    expect(await poller.metrics.registry.metrics()).toMatch(/^hashwatch_feed_items_stored_total\{[^}]*type="engagement"[^}]*\} [1-9]/m);
  });
});

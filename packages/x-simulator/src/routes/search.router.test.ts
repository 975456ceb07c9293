import request from 'supertest';
import { APP_HEADERS as APP, simulatorWithClock } from '../testing';

const SEARCH = '/2/tweets/search/recent';

describe('GET /2/tweets/search/recent field selection', () => {
  const sim = simulatorWithClock();
  let rootId = '';

  beforeAll(() => {
    const root = sim.state.injectPost({ author: 'alice', text: 'gm #BTC $TSLA', lang: 'en' });
    rootId = root.id;
    sim.state.addReply(root.id, { author: 'bob', text: '@alice gm #btc' });
  });

  it('returns only id, text and edit_history_tweet_ids when no fields are asked for', async () => {
    const res = await request(sim.app).get(SEARCH).query({ query: '#btc' }).set(APP).expect(200);
    expect(res.body.data).toHaveLength(2);
    for (const post of res.body.data) expect(Object.keys(post).sort()).toEqual(['edit_history_tweet_ids', 'id', 'text']);
    expect(res.body.includes).toBeUndefined();
  });

  it('adds exactly the tweet.fields asked for, and includes.users for expansions=author_id', async () => {
    const res = await request(sim.app)
      .get(SEARCH)
      .query({ query: '#btc', 'tweet.fields': 'created_at,lang,public_metrics,referenced_tweets,conversation_id,entities,author_id,in_reply_to_user_id', expansions: 'author_id', 'user.fields': 'username,name' })
      .set(APP)
      .expect(200);
    const [reply, root] = res.body.data;
    expect(root).toEqual({
      id: rootId,
      text: 'gm #BTC $TSLA',
      edit_history_tweet_ids: [rootId],
      created_at: '2026-11-22T12:00:00.000Z',
      lang: 'en',
      conversation_id: rootId,
      author_id: expect.any(String),
      public_metrics: { retweet_count: 0, reply_count: 1, like_count: 0, quote_count: 0, bookmark_count: 0, impression_count: 0 },
      entities: { hashtags: [{ start: 3, end: 7, tag: 'BTC' }], cashtags: [{ start: 8, end: 13, tag: 'TSLA' }] },
    });
    expect(reply.referenced_tweets).toEqual([{ type: 'replied_to', id: rootId }]);
    expect(reply.in_reply_to_user_id).toBe(root.author_id);
    expect(res.body.includes.users.map((user: { username: string }) => user.username).sort()).toEqual(['alice', 'bob']);
    expect(Object.keys(res.body.includes.users[0]).sort()).toEqual(['id', 'name', 'username']);
  });

  it('accepts post.fields like tweet.fields', async () => {
    const res = await request(sim.app).get(SEARCH).query({ query: '#btc', 'post.fields': 'lang' }).set(APP).expect(200);
    expect(res.body.data[0].lang).toBe('en');
    expect(res.body.data[0].created_at).toBeUndefined();
  });

  it('fills includes.tweets for expansions=referenced_tweets.id', async () => {
    const res = await request(sim.app).get(SEARCH).query({ query: '#btc is:reply', expansions: 'referenced_tweets.id' }).set(APP).expect(200);
    expect(res.body.includes.tweets.map((post: { id: string }) => post.id)).toEqual([rootId]);
  });

  it('answers 400 invalid-request naming an unknown field value or parameter', async () => {
    const bad = await request(sim.app).get(SEARCH).query({ query: '#btc', 'tweet.fields': 'lang,colour' }).set(APP).expect(400);
    expect(bad.body.type).toBe('https://api.twitter.com/2/problems/invalid-request');
    expect(bad.body.errors[0]).toEqual({ parameters: { 'tweet.fields': ['lang,colour'] }, message: expect.stringContaining('[colour] is not one of') });
    const unknown = await request(sim.app).get(SEARCH).query({ query: '#btc', colour: 'red' }).set(APP).expect(400);
    expect(unknown.body.errors[0].message).toMatch(/^The query parameter \[colour\] is not one of/);
  });
});

describe('GET /2/tweets/search/recent with naming v2.167', () => {
  const sim = simulatorWithClock({ naming: 'v2.167' });

  it('answers with repost_count, referenced_posts, edit_history_post_ids and includes.posts', async () => {
    const root = sim.state.injectPost({ author: 'alice', text: 'hello #eth' });
    sim.state.addReply(root.id, { author: 'bob', text: 'hi #eth' });
    const res = await request(sim.app)
      .get(SEARCH)
      .query({ query: '#eth', 'tweet.fields': 'public_metrics,referenced_tweets', expansions: 'referenced_tweets.id,author_id' })
      .set(APP)
      .expect(200);
    const [reply, original] = res.body.data;
    expect(original.edit_history_post_ids).toEqual([root.id]);
    expect(original.edit_history_tweet_ids).toBeUndefined();
    expect(original.public_metrics).toEqual({ repost_count: 0, reply_count: 1, like_count: 0, quote_count: 0, bookmark_count: 0, impression_count: 0 });
    expect(reply.referenced_posts).toEqual([{ type: 'replied_to', id: root.id }]);
    expect(reply.referenced_tweets).toBeUndefined();
    expect(res.body.includes.posts.map((post: { id: string }) => post.id)).toEqual([root.id]);
    expect(res.body.includes.tweets).toBeUndefined();
  });

  it('uses api.x.com problem types', async () => {
    const res = await request(sim.app).get(SEARCH).query({ query: '(' }).set(APP).expect(400);
    expect(res.body.type).toBe('https://api.x.com/2/problems/invalid-request');
  });
});

describe('GET /2/tweets/search/recent pagination and bounds', () => {
  const sim = simulatorWithClock();
  const ids: string[] = [];

  beforeAll(() => {
    for (let i = 0; i < 25; i += 1) {
      ids.push(sim.state.injectPost({ author: `user${i % 3}`, text: `post ${i} #page`, created_at: new Date(sim.clock.now - (25 - i) * 60_000).toISOString() }).id);
      sim.state.injectPost({ author: 'other', text: `noise ${i} #other` });
    }
  });

  it('hands out increasing numeric ids in creation order', () => {
    expect(ids.every((id) => /^[0-9]{1,19}$/.test(id))).toBe(true);
    expect(ids.map(BigInt)).toEqual([...ids.map(BigInt)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('pages newest first with next_token and meta newest_id, oldest_id, result_count', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    const metas: Record<string, unknown>[] = [];
    do {
      const res = await request(sim.app)
        .get(SEARCH)
        .query({ query: '#page', max_results: 10, ...(token ? { next_token: token } : {}) })
        .set(APP)
        .expect(200);
      seen.push(...res.body.data.map((post: { id: string }) => post.id));
      metas.push(res.body.meta);
      token = res.body.meta.next_token;
    } while (token);
    expect(seen).toEqual([...ids].reverse());
    expect(metas.map((meta) => meta.result_count)).toEqual([10, 10, 5]);
    expect(metas[0]).toMatchObject({ newest_id: ids[24], oldest_id: ids[15], next_token: expect.any(String) });
    expect(metas[2]!.next_token).toBeUndefined();
  });

  it('accepts pagination_token as a synonym of next_token', async () => {
    const first = await request(sim.app).get(SEARCH).query({ query: '#page', max_results: 10 }).set(APP).expect(200);
    const second = await request(sim.app).get(SEARCH).query({ query: '#page', max_results: 10, pagination_token: first.body.meta.next_token }).set(APP).expect(200);
    expect(second.body.meta.newest_id).toBe(ids[14]);
  });

  it('returns only posts newer than since_id, and meta result_count 0 with no data when none are', async () => {
    const res = await request(sim.app).get(SEARCH).query({ query: '#page', since_id: ids[21] }).set(APP).expect(200);
    expect(res.body.data.map((post: { id: string }) => post.id)).toEqual([ids[24], ids[23], ids[22]]);
    const none = await request(sim.app).get(SEARCH).query({ query: '#page', since_id: ids[24] }).set(APP).expect(200);
    expect(none.body).toEqual({ meta: { result_count: 0 } });
  });

  it('keeps since_id while paging within one poll', async () => {
    const first = await request(sim.app).get(SEARCH).query({ query: '#page', since_id: ids[4], max_results: 10 }).set(APP).expect(200);
    const second = await request(sim.app).get(SEARCH).query({ query: '#page', since_id: ids[4], max_results: 10, next_token: first.body.meta.next_token }).set(APP).expect(200);
    expect(second.body.data.map((post: { id: string }) => post.id)).toEqual(ids.slice(5, 15).reverse());
    expect(second.body.meta.next_token).toBeUndefined();
  });

  it('applies until_id, inclusive start_time and exclusive end_time', async () => {
    const until = await request(sim.app).get(SEARCH).query({ query: '#page', until_id: ids[2] }).set(APP).expect(200);
    expect(until.body.data.map((post: { id: string }) => post.id)).toEqual([ids[1], ids[0]]);
    const startTime = new Date(sim.clock.now - 3 * 60_000).toISOString();
    const endTime = new Date(sim.clock.now - 60_000).toISOString();
    const window = await request(sim.app).get(SEARCH).query({ query: '#page', start_time: startTime, end_time: endTime }).set(APP).expect(200);
    expect(window.body.data.map((post: { id: string }) => post.id)).toEqual([ids[23], ids[22]]);
  });

  it.each([
    ['max_results below 10', { max_results: 9 }, 'max_results'],
    ['max_results above 100', { max_results: 101 }, 'max_results'],
    ['a non-numeric since_id', { since_id: 'abc' }, 'since_id'],
    ['a start_time older than 7 days', { start_time: '2026-11-14T00:00:00Z' }, 'start_time'],
    ['an end_time less than 10 s ago', { end_time: '2026-11-22T11:59:55Z' }, 'end_time'],
    ['a malformed start_time', { start_time: 'yesterday' }, 'start_time'],
    ['a forged next_token', { next_token: 'nope!' }, 'next_token'],
    ['an unknown sort_order', { sort_order: 'random' }, 'sort_order'],
  ])('answers 400 for %s', async (_what, params, parameter) => {
    const res = await request(sim.app).get(SEARCH).query({ query: '#page', ...params }).set(APP).expect(400);
    expect(Object.keys(res.body.errors[0].parameters)).toEqual([parameter]);
  });

  it('answers 400 naming the query for one over maxQueryLength, or one that does not parse', async () => {
    const long = await request(sim.app).get(SEARCH).query({ query: `#${'a'.repeat(512)}` }).set(APP).expect(400);
    expect(long.body.errors[0].parameters).toEqual({ query: [`#${'a'.repeat(512)}`] });
    await request(sim.app).get(SEARCH).query({ query: '#a OR' }).set(APP).expect(400);
    const missing = await request(sim.app).get(SEARCH).set(APP).expect(400);
    expect(missing.body.errors[0].message).toMatch(/query/);
  });
});

describe('GET /2/tweets/search/recent visibility', () => {
  it('never returns retweets by default, like X since May 2026, and does when configured to', async () => {
    for (const searchIncludesRetweets of [false, true]) {
      const sim = simulatorWithClock({ searchIncludesRetweets });
      const root = sim.state.injectPost({ author: 'alice', text: '#btc up' });
      sim.state.addRetweets(root.id, { usernames: ['bob'] });
      const res = await request(sim.app).get(SEARCH).query({ query: '#btc' }).set(APP).expect(200);
      expect(res.body.meta.result_count).toBe(searchIncludesRetweets ? 2 : 1);
      const only = await request(sim.app).get(SEARCH).query({ query: '#btc is:retweet' }).set(APP).expect(200);
      expect(only.body.meta.result_count).toBe(searchIncludesRetweets ? 1 : 0);
    }
  });

  it('hides posts older than 7 days and posts still inside the index lag', async () => {
    const sim = simulatorWithClock({ indexLagMs: 5_000 });
    sim.state.injectPost({ author: 'alice', text: 'old #btc', created_at: new Date(sim.clock.now - 8 * 24 * 3600 * 1000).toISOString() });
    sim.state.injectPost({ author: 'alice', text: 'fresh #btc' });
    const before = await request(sim.app).get(SEARCH).query({ query: '#btc' }).set(APP).expect(200);
    expect(before.body.meta.result_count).toBe(0);
    sim.clock.advance(5_000);
    const after = await request(sim.app).get(SEARCH).query({ query: '#btc' }).set(APP).expect(200);
    expect(after.body.data.map((post: { text: string }) => post.text)).toEqual(['fresh #btc']);
  });

  it('shows a post whose indexing was delayed even though a newer id was served first', async () => {
    const sim = simulatorWithClock();
    const late = sim.state.injectPost({ author: 'alice', text: 'late #btc', visible_after_ms: 3_000 });
    const prompt = sim.state.injectPost({ author: 'bob', text: 'prompt #btc' });
    const first = await request(sim.app).get(SEARCH).query({ query: '#btc' }).set(APP).expect(200);
    expect(first.body.data.map((post: { id: string }) => post.id)).toEqual([prompt.id]);
    sim.clock.advance(3_000);
    const since = await request(sim.app).get(SEARCH).query({ query: '#btc', since_id: prompt.id }).set(APP).expect(200);
    expect(since.body.meta.result_count).toBe(0);
    const window = await request(sim.app).get(SEARCH).query({ query: '#btc' }).set(APP).expect(200);
    expect(window.body.data.map((post: { id: string }) => post.id)).toEqual([prompt.id, late.id]);
  });
});

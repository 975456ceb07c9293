import request from 'supertest';
import { APP_HEADERS as APP, USER_HEADERS as USER, simulatorWithClock } from '../testing';

describe('GET /2/tweets?ids= and /2/tweets/:id', () => {
  const sim = simulatorWithClock();

  it('returns found posts in data and missing ids as resource-not-found errors in the same 200', async () => {
    const a = sim.state.injectPost({ author: 'alice', text: 'one' });
    const b = sim.state.injectPost({ author: 'alice', text: 'two' });
    const res = await request(sim.app).get('/2/tweets').query({ ids: `${b.id},999,${a.id}`, 'tweet.fields': 'public_metrics' }).set(APP).expect(200);
    expect(res.body.data.map((post: { id: string }) => post.id)).toEqual([b.id, a.id]);
    expect(res.body.data[0].public_metrics.like_count).toBe(0);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ resource_id: '999', resource_type: 'tweet', parameter: 'ids', type: 'https://api.twitter.com/2/problems/resource-not-found' }),
    ]);
  });

  it('answers a deleted post as not found', async () => {
    const post = sim.state.injectPost({ author: 'alice', text: 'soon gone' });
    sim.state.deletePost(post.id);
    const res = await request(sim.app).get(`/2/tweets/${post.id}`).set(APP).expect(200);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0]).toMatchObject({ resource_id: post.id, parameter: 'id' });
  });

  it('returns a single object for /2/tweets/:id', async () => {
    const post = sim.state.injectPost({ author: 'alice', text: 'single' });
    const res = await request(sim.app).get(`/2/tweets/${post.id}`).set(APP).expect(200);
    expect(res.body.data).toEqual({ id: post.id, text: 'single', edit_history_tweet_ids: [post.id] });
  });

  it('answers 400 for more than 100 ids, a non-numeric id, or no ids', async () => {
    const many = Array.from({ length: 101 }, (_, i) => String(i + 1)).join(',');
    await request(sim.app).get('/2/tweets').query({ ids: many }).set(APP).expect(400);
    await request(sim.app).get('/2/tweets').query({ ids: '1,x' }).set(APP).expect(400);
    await request(sim.app).get('/2/tweets').set(APP).expect(400);
    await request(sim.app).get('/2/tweets/abc').set(APP).expect(400);
  });
});

describe('GET /2/users/by and /2/users/by/username/:username', () => {
  const sim = simulatorWithClock();

  beforeAll(() => {
    sim.state.createUser({ username: 'Alice', name: 'Alice A.', followers_count: 42 });
  });

  it('resolves handles case-insensitively and reports unknown ones in errors', async () => {
    const res = await request(sim.app).get('/2/users/by').query({ usernames: 'alice,ghost', 'user.fields': 'public_metrics' }).set(APP).expect(200);
    expect(res.body.data).toEqual([{ id: expect.stringMatching(/^\d+$/), name: 'Alice A.', username: 'Alice', public_metrics: expect.objectContaining({ followers_count: 42, tweet_count: 0 }) }]);
    expect(res.body.errors[0]).toMatchObject({ value: 'ghost', resource_type: 'user', parameter: 'usernames' });
  });

  it('answers 200 with only errors for an unknown single handle, and 400 for an invalid one', async () => {
    const missing = await request(sim.app).get('/2/users/by/username/ghost').set(APP).expect(200);
    expect(missing.body.data).toBeUndefined();
    expect(missing.body.errors[0].type).toMatch(/resource-not-found$/);
    await request(sim.app).get('/2/users/by/username/not-a-handle').set(APP).expect(400);
    await request(sim.app).get('/2/users/by').query({ usernames: 'a'.repeat(16) }).set(APP).expect(400);
  });
});

describe('GET /2/users/:id/tweets', () => {
  const sim = simulatorWithClock();
  let userId = '';
  const ids: Record<string, string> = {};

  beforeAll(() => {
    const other = sim.state.injectPost({ author: 'bob', text: 'bob says' });
    const original = sim.state.injectPost({ author: 'alice', text: 'original', created_at: new Date(sim.clock.now - 60_000).toISOString() });
    ids.original = original.id;
    ids.reply = sim.state.addReply(other.id, { author: 'alice', text: '@bob reply' }).id;
    sim.state.addRetweets(other.id, { usernames: ['alice'] });
    userId = sim.state.store.userByUsername('alice')!.id;
    ids.retweet = [...sim.state.store.newestFirst({ authorId: userId })][0]!.id;
  });

  it('returns the timeline newest first, retweets and replies included', async () => {
    const res = await request(sim.app).get(`/2/users/${userId}/tweets`).set(APP).expect(200);
    expect(res.body.data.map((post: { id: string }) => post.id)).toEqual([ids.retweet, ids.reply, ids.original]);
    expect(res.body.meta).toMatchObject({ result_count: 3, newest_id: ids.retweet, oldest_id: ids.original });
  });

  it('drops retweets and replies with exclude', async () => {
    const res = await request(sim.app).get(`/2/users/${userId}/tweets`).query({ exclude: 'retweets,replies' }).set(APP).expect(200);
    expect(res.body.data.map((post: { id: string }) => post.id)).toEqual([ids.original]);
  });

  it('lets since_id take precedence over start_time', async () => {
    const res = await request(sim.app)
      .get(`/2/users/${userId}/tweets`)
      .query({ since_id: ids.original, start_time: new Date(sim.clock.now + 3600_000).toISOString() })
      .set(APP)
      .expect(200);
    expect(res.body.meta.result_count).toBe(2);
  });

  it('pages with pagination_token and refuses max_results below 5', async () => {
    const first = await request(sim.app).get(`/2/users/${userId}/tweets`).query({ max_results: 5 }).set(APP).expect(200);
    expect(first.body.meta.next_token).toBeUndefined();
    await request(sim.app).get(`/2/users/${userId}/tweets`).query({ max_results: 4 }).set(APP).expect(400);
  });

  it('answers an unknown user with a resource-not-found error', async () => {
    const res = await request(sim.app).get('/2/users/123/tweets').set(APP).expect(200);
    expect(res.body.errors[0]).toMatchObject({ resource_type: 'user', resource_id: '123' });
  });
});

describe('GET /2/tweets/:id/liking_users and /retweeted_by', () => {
  const sim = simulatorWithClock({ likingUsersCap: 3 });
  let postId = '';

  beforeAll(() => {
    postId = sim.state.injectPost({ author: 'alice', text: 'like me' }).id;
    sim.state.addLikes(postId, { usernames: ['u1', 'u2', 'u3', 'u4'], anonymous: 10 });
    sim.state.addRetweets(postId, { usernames: ['r1', 'r2'], anonymous: 5 });
  });

  it('refuses an app-only token with 403 unsupported-authentication', async () => {
    const res = await request(sim.app).get(`/2/tweets/${postId}/liking_users`).set(APP).expect(403);
    expect(res.body.type).toBe('https://api.twitter.com/2/problems/unsupported-authentication');
  });

  it('lists at most likingUsersCap likers (the newest) to a user token while like_count stays the real total', async () => {
    const res = await request(sim.app).get(`/2/tweets/${postId}/liking_users`).set(USER).expect(200);
    expect(res.body.data.map((user: { username: string }) => user.username)).toEqual(['u4', 'u3', 'u2']);
    const post = await request(sim.app).get(`/2/tweets/${postId}`).query({ 'tweet.fields': 'public_metrics' }).set(APP).expect(200);
    expect(post.body.data.public_metrics).toMatchObject({ like_count: 14, retweet_count: 7 });
  });

  it('pages retweeters with pagination_token for an app token', async () => {
    const first = await request(sim.app).get(`/2/tweets/${postId}/retweeted_by`).query({ max_results: 1 }).set(APP).expect(200);
    expect(first.body.data.map((user: { username: string }) => user.username)).toEqual(['r2']);
    const second = await request(sim.app).get(`/2/tweets/${postId}/retweeted_by`).query({ max_results: 1, pagination_token: first.body.meta.next_token }).set(APP).expect(200);
    expect(second.body.data.map((user: { username: string }) => user.username)).toEqual(['r1']);
    expect(second.body.meta.next_token).toBeUndefined();
  });
});

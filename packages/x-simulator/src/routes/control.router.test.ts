import request from 'supertest';
import { APP_HEADERS as APP, simulatorWithClock } from '../testing';

describe('control API /_sim', () => {
  const sim = simulatorWithClock();

  beforeEach(async () => {
    await request(sim.app).post('/_sim/reset').expect(204);
  });

  it('creates users and refuses a duplicate handle with 409', async () => {
    const res = await request(sim.app).post('/_sim/users').send({ username: 'alice', name: 'Alice', verified: true }).expect(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^\d+$/), username: 'alice', name: 'Alice', verified: true });
    const again = await request(sim.app).post('/_sim/users').send({ username: 'ALICE' }).expect(409);
    expect(again.body.error.code).toBe('conflict');
    await request(sim.app).get('/_sim/users/alice').expect(200);
  });

  it('injects a post with hashtag and cashtag entities, lang and created_at, creating its author', async () => {
    const res = await request(sim.app)
      .post('/_sim/posts')
      .send({ author: 'bob', text: 'Buy $TSLA #stocks', lang: 'fr', created_at: '2026-11-22T11:00:00Z' })
      .expect(201);
    expect(res.body).toMatchObject({
      text: 'Buy $TSLA #stocks',
      lang: 'fr',
      created_at: '2026-11-22T11:00:00.000Z',
      author_username: 'bob',
      entities: { cashtags: [{ start: 4, end: 9, tag: 'TSLA' }], hashtags: [{ start: 10, end: 17, tag: 'stocks' }] },
    });
  });

  it('refuses an invalid post with 400 naming the field', async () => {
    const res = await request(sim.app).post('/_sim/posts').send({ author: 'bad handle!', text: 'x' }).expect(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.stringContaining('author') });
    await request(sim.app).post('/_sim/posts').send({ author: 'bob', text: 'x', extra: 1 }).expect(400);
    await request(sim.app).post('/_sim/posts').send({ author: 'bob' }).expect(400);
    await request(sim.app).post('/_sim/posts').send({ author: 'bob', text: 'x', reply_to: '42' }).expect(404);
  });

  it('adds likes, retweets and replies that public_metrics and the engagement endpoints follow', async () => {
    const post = (await request(sim.app).post('/_sim/posts').send({ author: 'alice', text: 'root #x' }).expect(201)).body;
    await request(sim.app).post(`/_sim/posts/${post.id}/likes`).send({ usernames: ['l1', 'l2'], anonymous: 3 }).expect(200);
    await request(sim.app).post(`/_sim/posts/${post.id}/likes`).send({ usernames: ['l1'] }).expect(200);
    await request(sim.app).post(`/_sim/posts/${post.id}/retweets`).send({ usernames: ['r1'] }).expect(200);
    const reply = await request(sim.app).post(`/_sim/posts/${post.id}/replies`).send({ author: 'c1', text: '@alice yes' }).expect(201);
    expect(reply.body).toMatchObject({ conversation_id: post.id, in_reply_to_user_id: post.author_id, referenced_tweets: [{ type: 'replied_to', id: post.id }] });
    const state = await request(sim.app).get(`/_sim/posts/${post.id}`).expect(200);
    expect(state.body.public_metrics).toMatchObject({ like_count: 5, retweet_count: 1, reply_count: 1 });
    expect(state.body).toMatchObject({ likers: ['l1', 'l2'], retweeters: ['r1'] });
    const conversation = await request(sim.app).get('/2/tweets/search/recent').query({ query: `conversation_id:${post.id}` }).set(APP).expect(200);
    expect(conversation.body.meta.result_count).toBe(2);
  });

  it('deletes a post so lookups report it not found', async () => {
    const post = (await request(sim.app).post('/_sim/posts').send({ author: 'alice', text: 'bye' }).expect(201)).body;
    await request(sim.app).delete(`/_sim/posts/${post.id}`).expect(204);
    await request(sim.app).delete(`/_sim/posts/${post.id}`).expect(404);
    const res = await request(sim.app).get('/2/tweets').query({ ids: post.id }).set(APP).expect(200);
    expect(res.body.errors).toHaveLength(1);
  });

  it('counts upstream requests and billed post reads per endpoint, and clears them', async () => {
    await request(sim.app).post('/_sim/posts').send({ author: 'alice', text: 'a #x' }).expect(201);
    await request(sim.app).post('/_sim/posts').send({ author: 'alice', text: 'b #x' }).expect(201);
    await request(sim.app).get('/2/tweets/search/recent').query({ query: '#x', expansions: 'author_id' }).set(APP).expect(200);
    await request(sim.app).get('/2/tweets/search/recent').query({ query: '(' }).set(APP).expect(400);
    const counters = await request(sim.app).get('/_sim/counters').expect(200);
    expect(counters.body.endpoints.search_recent).toEqual({ requests: 2, statuses: { 200: 1, 400: 1 }, postsServed: 2, usersServed: 1 });
    expect(counters.body.totals.postsServed).toBe(2);
    const log = await request(sim.app).get('/_sim/requests').query({ endpoint: 'search_recent' }).expect(200);
    expect(log.body.data.map((entry: { status: number }) => entry.status)).toEqual([200, 400]);
    expect(log.body.data[0]).toMatchObject({ path: '/2/tweets/search/recent', tokenKind: 'app', postsServed: 2, query: { query: '#x', expansions: 'author_id' } });
    await request(sim.app).delete('/_sim/requests').expect(204);
    expect((await request(sim.app).get('/_sim/counters')).body.totals.requests).toBe(0);
  });

  it('starts, produces and stops the generator', async () => {
    const started = await request(sim.app).post('/_sim/generator/start').send({ postsPerSecond: 0, tags: ['solo'] }).expect(200);
    expect(started.body).toMatchObject({ running: true, options: { postsPerSecond: 0, tags: ['solo'] } });
    const produced = await request(sim.app).post('/_sim/generator/produce').send({ count: 5 }).expect(201);
    expect(produced.body.data).toHaveLength(5);
    const stopped = await request(sim.app).post('/_sim/generator/stop').expect(200);
    expect(stopped.body).toMatchObject({ running: false, generated: 5 });
    await request(sim.app).post('/_sim/generator/start').send({ postsPerSecond: -1 }).expect(400);
    await request(sim.app).post('/_sim/generator/stop').expect(200);
  });

  it('resets users, posts, faults and counters', async () => {
    await request(sim.app).post('/_sim/posts').send({ author: 'alice', text: 'x' }).expect(201);
    await request(sim.app).post('/_sim/faults').send({ endpoint: '*', kind: 'unavailable' }).expect(201);
    await request(sim.app).post('/_sim/reset').expect(204);
    expect((await request(sim.app).get('/_sim/health')).body.posts).toBe(0);
    await request(sim.app).get('/_sim/users/alice').expect(404);
    expect((await request(sim.app).get('/_sim/faults')).body.data).toEqual([]);
  });

  it('answers 400 to a body that is not JSON', async () => {
    await request(sim.app).post('/_sim/users').set('Content-Type', 'application/json').send('{nope').expect(400);
  });
});

import { createDatabase, type Database } from '@hashwatch/db';
import { createApp } from '../../app';
import { feedFixture } from '../../test-support/feed-fixture';
import { request, useGateway } from '../../test-support/gateway-harness';

/**
 * GET /v1/posts authenticates and reads its page in one statement (postsInOneRoundTrip); requests it does not
 * take go on to the /v1 chain. These tests drive a gateway whose pool has one connection, so the statements
 * it prepared (pg_prepared_statements is per connection) show which path answered.
 */
describe('GET /v1/posts in one round trip', () => {
  const gw = useGateway();
  const { item, store, storeMany } = feedFixture(gw);
  let db: Database;
  let app: ReturnType<typeof createApp>;

  beforeEach(() => {
    db = createDatabase(gw.env.database.url, { max: 1 });
    app = createApp({ ...gw.deps, db });
  });
  afterEach(() => db.close());

  async function preparedNames(): Promise<string[]> {
    const { rows } = await db.pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
    return rows.map((row) => row.name);
  }

  it('answers a page with one statement: the key lookup of authentication is not run on its own', async () => {
    const { accountId, auth } = await gw.account();
    const stored = await storeMany(accountId, 11);
    const res = await request(app).get('/v1/posts').query({ limit: 10 }).set(auth);
    expect(res.status).toBe(200);
    expect(res.body.data.map((post: { id: string }) => post.id)).toEqual(stored.slice(0, 10).map((row) => row.id));
    expect(res.headers['x-ratelimit-remaining']).toBe('59');
    const next = await request(app).get('/v1/posts').query({ limit: 10, cursor: res.body.next_cursor }).set(auth);
    expect(next.body).toEqual({ data: [expect.objectContaining({ id: stored[10]?.id })], next_cursor: null });
    expect(await preparedNames()).toEqual(['posts-key-page-10-', 'posts-key-page-10-c']);
  });

  it('answers the same page, counted once, when a request goes the way of every other route', async () => {
    const { accountId, auth } = await gw.account();
    await storeMany(accountId, 3);
    await store([item(accountId, { engagementTracked: true })]);
    const direct = await request(app).get('/v1/posts').query({ limit: 3 }).set(auth);
    // A chunked request may carry a body, so the one-statement path leaves it to the /v1 chain.
    const chained = await request(app).get('/v1/posts').query({ limit: 3 }).set(auth).set('Transfer-Encoding', 'chunked').send('');
    expect(chained.status).toBe(200);
    expect(chained.text).toBe(direct.text);
    expect([direct.headers['x-ratelimit-remaining'], chained.headers['x-ratelimit-remaining']]).toEqual(['59', '58']);
    expect(await preparedNames()).toEqual(expect.arrayContaining(['hw-authenticate']));
  });

  it('answers an empty page for a key whose account has no items', async () => {
    const { auth } = await gw.account();
    const res = await request(app).get('/v1/posts').set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], next_cursor: null });
    expect(res.headers['x-ratelimit-limit']).toBe('60');
  });

  it('answers 401 for an unknown or revoked key, and counts it against the address like every route', async () => {
    const { accountId, auth } = await gw.account();
    await store([item(accountId)]);
    await gw.env.redis.del(...(await gw.env.redis.keys(`${gw.env.queuePrefix}:rl:authfail*`)), 'none');
    expect((await request(app).get('/v1/posts').set({ Authorization: 'Bearer hw_live_unknown' })).status).toBe(401);
    await gw.env.database.db.pool.query('UPDATE api_keys SET revoked_at = now() WHERE user_id = $1', [accountId]);
    const revoked = await request(app).get('/v1/posts').set(auth);
    expect(revoked.status).toBe(401);
    expect(revoked.body).toEqual({ error: { code: 'unauthorized', message: 'the API key is invalid or revoked' } });
    for (let i = 0; i < 58; i += 1) await request(app).get('/v1/tracks').set({ Authorization: `Bearer wrong${i}` });
    const limited = await request(app).get('/v1/posts').set({ Authorization: 'Bearer hw_live_unknown' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    await gw.env.redis.del(...(await gw.env.redis.keys(`${gw.env.queuePrefix}:rl:authfail*`)));
  });

  it("shares the key's per-minute cap with every other route, and answers 429 with Retry-After and no page", async () => {
    const { accountId, auth } = await gw.account();
    await store([item(accountId)]);
    await gw.env.database.db.pool.query('UPDATE users SET rate_limit_per_minute = 3 WHERE id = $1', [accountId]);
    await request(app).get('/v1/tracks').set(auth).expect(200);
    await request(app).get('/v1/posts').set(auth).expect(200);
    await request(gw.app).get('/v1/posts').set(auth).expect(200);
    const res = await request(app).get('/v1/posts').set(auth);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/cap of 3 requests per minute/) } });
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it.each([
    ['canceled', `subscription_status = 'canceled'`, /canceled/],
    ['expired', `current_period_end = '2026-01-01T00:00:00.250Z'`, /expired on 2026-01-01T00:00:00.250Z/],
  ])('answers 402 when the subscription is %s, with the rate-limit headers and no page', async (_name, set, reason) => {
    const { accountId, auth } = await gw.account();
    await store([item(accountId)]);
    await gw.env.database.db.pool.query(`UPDATE users SET ${set} WHERE id = $1`, [accountId]);
    const res = await request(app).get('/v1/posts').set(auth);
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ error: { code: 'subscription_inactive', message: expect.stringMatching(reason) } });
    expect(res.headers['x-ratelimit-remaining']).toBe('59');
  });

  it("answers 400 for another account's cursor, after authenticating, with nothing of either feed", async () => {
    const owner = await gw.account();
    const other = await gw.account();
    await storeMany(owner.accountId, 3);
    await storeMany(other.accountId, 3);
    const first = await request(app).get('/v1/posts').query({ limit: 1 }).set(owner.auth);
    const foreign = await request(app).get('/v1/posts').query({ limit: 1, cursor: first.body.next_cursor }).set(other.auth);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ error: { code: 'invalid_request', message: expect.stringMatching(/^cursor: not valid for this request/) } });
    // The same cursor with a key that does not exist is a 401, as on every route.
    const unknown = await request(app).get('/v1/posts').query({ limit: 1, cursor: first.body.next_cursor }).set({ Authorization: 'Bearer hw_live_x' });
    expect(unknown.status).toBe(401);
  });
});

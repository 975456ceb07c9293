import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createClient, HashwatchError, type FeedItem } from '@hashwatch/sdk';
import { feedFixture } from './test-support/feed-fixture';
import { useGateway } from './test-support/gateway-harness';

// @hashwatch/sdk driven against this gateway over real HTTP (the app listening on a loopback port), with its
// real database and Redis: what the SDK's users get, not a fake of the API.
describe('@hashwatch/sdk against the gateway', () => {
  const gw = useGateway();
  const { item, store, storeMany } = feedFixture(gw);
  let server: Server | undefined;
  let baseUrl = '';
  beforeAll(async () => {
    server = gw.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server?.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server?.closeAllConnections();
    return new Promise((resolve) => server?.close(resolve));
  });
  afterEach(() => gw.resetLimits());

  const failureOf = (promise: Promise<unknown>): Promise<HashwatchError> =>
    promise.then(
      () => {
        throw new Error('expected a HashwatchError');
      },
      (error: unknown) => {
        expect(error).toBeInstanceOf(HashwatchError);
        return error as HashwatchError;
      },
    );

  async function client(plan: 'starter' | 'pro' = 'pro') {
    const account = await gw.account(plan);
    return { ...account, hw: createClient({ baseUrl, apiKey: account.apiKey }) };
  }

  it('resolves a typed call with the 2xx body', async () => {
    const { hw } = await client();
    const created = await hw.post('/v1/tracks', { body: { hashtag: 'btc', lang: 'en' } });
    expect(created).toMatchObject({ id: expect.stringMatching(/^trk_/), hashtag: 'btc', lang: 'en' });
    const patched = await hw.patch('/v1/tracks/{id}', { params: { path: { id: created.id } }, body: { track_likes: true } });
    expect(patched.track_likes).toBe(true);
    expect((await hw.get('/v1/tracks')).data.map((track) => track.id)).toEqual([created.id]);
    expect(await hw.delete('/v1/tracks/{id}', { params: { path: { id: created.id } } })).toEqual({ id: created.id, deleted: true });
  });

  it('throws HashwatchError 400 invalid_request naming the field of a bad hashtag', async () => {
    const { hw } = await client();
    const error = await failureOf(hw.post('/v1/tracks', { body: { hashtag: '#btc' } }));
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', field: 'hashtag', retryAfterSeconds: undefined });
    expect(error.message).toMatch(/^hashtag: /);
  });

  it('throws 404 not_found for an id the account does not have, and 401 unauthorized for a wrong key', async () => {
    const { hw } = await client();
    const missing = await failureOf(hw.patch('/v1/tracks/{id}', { params: { path: { id: 'trk_doesnotexist' } }, body: { track_likes: true } }));
    expect(missing).toMatchObject({ status: 404, code: 'not_found', field: undefined });
    const stranger = createClient({ baseUrl, apiKey: 'hw_live_notakeynotakeynotakeynotakey' });
    expect(await failureOf(stranger.get('/v1/me'))).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(await failureOf(createClient({ baseUrl }).get('/v1/me'))).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('turns a request that gets no answer into HashwatchError network_error with status 0', async () => {
    const closed = gw.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => closed.once('listening', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failureOf(createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'hw_live_x' }).get('/v1/me'));
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
  });

  it('sends the session’s X-CSRF-Token on unsafe requests, as the dashboard does, and none when csrfToken is absent', async () => {
    const email = `sdk-${Date.now()}@example.com`;
    await gw.checkout({ email, password: 'correct horse battery staple', plan: 'pro' }, true);
    const session = await gw.signIn(email, 'correct horse battery staple');
    // Node's fetch keeps no cookies: this one sends the session cookie as a browser sends it to its own origin.
    const browserFetch: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      request.headers.set('Cookie', session.cookie);
      return fetch(request);
    };
    const withToken = createClient({ baseUrl, fetch: browserFetch, csrfToken: () => session.csrf });
    expect((await withToken.get('/v1/session')).account_id).toBe(session.accountId);
    const created = await withToken.post('/v1/tracks', { body: { hashtag: 'eth' } });
    expect(created.hashtag).toBe('eth');
    const withoutToken = createClient({ baseUrl, fetch: browserFetch });
    expect((await withoutToken.get('/v1/tracks')).data).toHaveLength(1);
    expect(await failureOf(withoutToken.post('/v1/tracks', { body: { hashtag: 'sol' } }))).toMatchObject({ status: 403, code: 'csrf_failed' });
    const noTokenYet = createClient({ baseUrl, fetch: browserFetch, csrfToken: () => undefined });
    expect(await failureOf(noTokenYet.delete('/v1/tracks/{id}', { params: { path: { id: created.id } } }))).toMatchObject({ code: 'csrf_failed' });
    // DELETE /v1/session answers 204: the call resolves with undefined.
    expect(await withToken.delete('/v1/session')).toBeUndefined();
    expect(await failureOf(withToken.get('/v1/tracks'))).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('pages() follows next_cursor over every page of the feed, with the filters', async () => {
    const { hw, accountId } = await client();
    const stored = await storeMany(accountId, 230, 7);
    await store([item(accountId, { type: 'account', sources: ['@alice'] })]);
    const ids: string[] = [];
    for await (const post of hw.pages('/v1/posts', { query: { type: 'hashtag', limit: 100 } })) ids.push(post.id);
    expect(ids).toEqual(stored.map((row) => row.id));
    let everyType = 0;
    for await (const _post of hw.pages('/v1/posts')) everyType += 1;
    expect(everyType).toBe(231);
  });

  it('watch() yields each item stored while it runs exactly once, oldest first, and none from before', async () => {
    const { hw, accountId } = await client();
    await storeMany(accountId, 5, 5);
    const controller = new AbortController();
    const seen: FeedItem[] = [];
    const watching = (async () => {
      for await (const post of hw.watch({ intervalMs: 50, signal: controller.signal })) seen.push(post);
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later: string[] = [];
    for (let group = 0; group < 12; group += 1) {
      later.push(...(await storeMany(accountId, 1 + (group % 4) * 30, 1 + (group % 4) * 30)).map((row) => row.id));
      await new Promise((resolve) => setTimeout(resolve, group * 7));
    }
    const deadline = Date.now() + 15_000;
    while (seen.length < later.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    await watching;
    expect(seen.map((post) => post.id).sort()).toEqual([...later].sort());
    const order = seen.map((post) => [Date.parse(post.detected_at), post.id] as const);
    expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1)));
  });

  it('watch() resumed from the last yielded detected_at and id, part-way through a group, yields the rest once', async () => {
    const { hw, accountId } = await client();
    const since = new Date(Date.now() - 60_000).toISOString();
    const group = (await storeMany(accountId, 6, 6)).map((row) => row.id);
    const after = (await storeMany(accountId, 3, 1)).map((row) => row.id);
    const first: FeedItem[] = [];
    for await (const post of hw.watch({ since, intervalMs: 50 })) {
      first.push(post);
      if (first.length === 4) break;
    }
    const last = first[3] as FeedItem;
    const rest: string[] = [];
    const controller = new AbortController();
    for await (const post of hw.watch({ since: last.detected_at, sinceId: last.id, intervalMs: 50, signal: controller.signal })) {
      rest.push(post.id);
      if (rest.length === 5) controller.abort();
    }
    expect([...first.map((post) => post.id), ...rest].sort()).toEqual([...group, ...after].sort());
    // The detected_at alone, as the API's `since`, skips the group's unseen items: the id is what keeps them.
    const exclusive: string[] = [];
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 500);
    for await (const post of hw.watch({ since: last.detected_at, intervalMs: 50, signal: stop.signal })) exclusive.push(post.id);
    expect(exclusive.sort()).toEqual([...after].sort());
  });

  describe('the per-minute cap', () => {
    async function capped(limit: number) {
      const account = await client('starter');
      await gw.env.database.db.pool.query('UPDATE users SET rate_limit_per_minute = $2 WHERE id = $1', [account.accountId, limit]);
      const windowKey = `${gw.env.queuePrefix}:rl:account:${limit}:${account.accountId}`;
      return { ...account, windowKey };
    }

    it('waits out a 429 until the window resets, then answers', async () => {
      const { hw, windowKey } = await capped(2);
      await hw.get('/v1/tracks');
      await hw.get('/v1/tracks');
      // The real window is a minute; the test shortens what is left of it in Redis, and the gateway says so in
      // Retry-After / X-RateLimit-Reset.
      await gw.env.redis.pexpire(windowKey, 1500);
      const started = Date.now();
      expect((await hw.get('/v1/tracks')).data).toEqual([]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    });

    it('throws the 429 with retryAfterSeconds when the wait would pass maxRateLimitWaitMs', async () => {
      const { apiKey } = await capped(2);
      const hw = createClient({ baseUrl, apiKey, maxRateLimitWaitMs: 1000 });
      await hw.get('/v1/tracks');
      await hw.get('/v1/tracks');
      const started = Date.now();
      const error = await failureOf(hw.get('/v1/tracks'));
      expect(error).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(error.retryAfterSeconds).toBeGreaterThan(1);
      expect(Date.now() - started).toBeLessThan(1000);
    });
  });
});

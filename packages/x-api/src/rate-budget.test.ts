import type { Cluster, Redis } from 'ioredis';
import { createQueuePrefix, deletePrefixKeys, openTestRedis, redisTargetFromEnv, waitFor } from '@hashwatch/testing';
import { RateBudget } from './rate-budget';
import { XRateLimitedError } from './x-errors';
import { useXClientFixture } from './test-support/x-client-fixture';

const sleepUntil = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now() + 50)));

describe('the rate budget in whichever order answers arrive', () => {
  const keyPrefix = createQueuePrefix();
  let redis: Redis | Cluster;
  let budget: RateBudget;
  // Whole seconds of the real clock: Redis expires the keys by it.
  let t = 0;
  const at = (seconds: number) => (t + seconds) * 1000;

  beforeAll(() => {
    redis = openTestRedis(redisTargetFromEnv());
    budget = new RateBudget(redis, keyPrefix);
  });

  beforeEach(async () => {
    await deletePrefixKeys(redis, keyPrefix);
    t = Math.floor(Date.now() / 1000);
  });

  afterAll(async () => {
    await deletePrefixKeys(redis, keyPrefix);
    redis.disconnect();
  });

  it("calls again at a 429's own reset when the 200s before it promised a later one", async () => {
    await budget.record('search_recent', { limit: 450, remaining: 440, reset: t + 900 }, at(0));
    expect(await budget.exhaust('search_recent', t + 5)).toBe(t + 5);
    expect(await budget.reserve('search_recent', at(1))).toBe(t + 5);
    expect(await budget.reserve('search_recent', at(5.5))).toBeNull();
  });

  it('calls again at the 429\'s reset even when the 200s before it had counted the window down to 0', async () => {
    await budget.record('search_recent', { limit: 450, remaining: 0, reset: t + 900 }, at(0));
    expect(await budget.exhaust('search_recent', t + 5)).toBe(t + 5);
    expect(await budget.reserve('search_recent', at(5.5))).toBeNull();
  });

  it('keeps a 429 in force against a late 200 that promised a later reset (429, then 200)', async () => {
    await budget.exhaust('search_recent', t + 5);
    await budget.record('search_recent', { limit: 450, remaining: 3, reset: t + 900 }, at(1));
    expect(await budget.reserve('search_recent', at(2))).toBe(t + 5);
    await budget.record('search_recent', { limit: 450, remaining: 0, reset: t + 900 }, at(2));
    // Past the 429's reset the endpoint is called again: the late answers did not stretch the wait.
    expect(await budget.reserve('search_recent', at(5.5))).toBeNull();
    expect(await budget.read('search_recent')).toMatchObject({ remaining: 0, reset: t + 5, blockedUntil: t + 5 });
  });

  it('ignores a 200 from a window older than the stored 429 reset, and records the next window after it (429, then 200)', async () => {
    await budget.exhaust('search_recent', t + 60);
    await budget.record('search_recent', { limit: 450, remaining: 5, reset: t + 30 }, at(1));
    expect(await budget.reserve('search_recent', at(31))).toBe(t + 60);
    await budget.record('search_recent', { limit: 450, remaining: 449, reset: t + 960 }, at(61));
    expect(await budget.reserve('search_recent', at(61))).toBeNull();
    expect(await budget.read('search_recent')).toMatchObject({ limit: 450, remaining: 448, reset: t + 960 });
  });

  it('calls again at a late 429\'s reset from the old window, not at the new window\'s reset (200, then late 429)', async () => {
    await budget.record('search_recent', { limit: 450, remaining: 449, reset: t + 900 }, at(0));
    // The client never blocks for less than a second: the old window's reset (already past) becomes t + 1.
    expect(await budget.exhaust('search_recent', t + 1)).toBe(t + 1);
    expect(await budget.reserve('search_recent', at(0.5))).toBe(t + 1);
    expect(await budget.reserve('search_recent', at(1.5))).toBeNull();
    await budget.record('search_recent', { limit: 450, remaining: 447, reset: t + 900 }, at(1.6));
    expect(await budget.read('search_recent')).toMatchObject({ remaining: 447, reset: t + 900 });
  });

  it('takes the reset of the latest 429 to arrive, sooner or later than the one stored', async () => {
    await budget.exhaust('search_recent', t + 30);
    expect(await budget.exhaust('search_recent', t + 3)).toBe(t + 3);
    expect(await budget.reserve('search_recent', at(3.5))).toBeNull();
    expect(await budget.exhaust('search_recent', t + 40)).toBe(t + 40);
    expect(await budget.reserve('search_recent', at(39))).toBe(t + 40);
  });
});

describe('the shared rate budget across replicas', () => {
  const x = useXClientFixture({ rateLimitWindowSeconds: 2, rateLimits: { search_recent: { app: 3 }, user_posts: { app: 100 } } });

  beforeEach(async () => {
    x.sim.state.faults.clear();
    x.sim.state.limiter.setWindowSeconds(2);
    // One DEL per key: on a Redis Cluster the budgets of different endpoints live in different slots.
    await Promise.all(['search_recent', 'posts_lookup', 'user_posts', 'users_by_usernames'].map((name) => x.redis.del(`${x.keyPrefix}:xrl:${name}`)));
  });

  it('stops a second replica from calling X after the first got a 429, until the reset', async () => {
    const first = x.client();
    const second = x.client();
    x.sim.state.injectFault({ endpoint: 'posts_lookup', kind: 'rate_limited' });
    const before = x.requests('posts_lookup');

    const upstream = await first.postsByIds(['1']).catch((error: unknown) => error);
    expect(upstream).toBeInstanceOf(XRateLimitedError);
    expect(upstream).toMatchObject({ upstream: true });
    expect(x.requests('posts_lookup')).toBe(before + 1);

    const local = (await second.postsByIds(['1']).catch((error: unknown) => error)) as XRateLimitedError;
    expect(local).toBeInstanceOf(XRateLimitedError);
    expect(local).toMatchObject({ upstream: false, status: null });
    expect(local.resetAt).toEqual((upstream as XRateLimitedError).resetAt);
    expect(x.requests('posts_lookup')).toBe(before + 1);
    expect(await x.redis.hgetall(`${x.keyPrefix}:xrl:posts_lookup`)).toMatchObject({ remaining: '0', reset: String(local.resetAt.getTime() / 1000) });

    await sleepUntil(local.resetAt.getTime());
    await second.postsByIds(['1']);
    expect(x.requests('posts_lookup')).toBe(before + 2);
  });

  it('refuses locally once the headers said remaining 0, without a 429 from X', async () => {
    // The calls must all fall in one window however slow a loaded machine is: a long one.
    x.sim.state.limiter.setWindowSeconds(60);
    const first = x.client();
    const second = x.client();
    for (let i = 0; i < 3; i += 1) await first.searchRecent({ query: '#a' });
    expect(await first.readBudget('search_recent')).toMatchObject({ limit: 3, remaining: 0 });
    await expect(second.searchRecent({ query: '#a' })).rejects.toMatchObject({ code: 'x_rate_limited', upstream: false });
    expect(x.sim.state.requestLog.counters().endpoints.search_recent?.statuses['429']).toBeUndefined();
  });

  it('lets only as many concurrent calls through as the window has left', async () => {
    x.sim.state.limiter.setWindowSeconds(60);
    const replicas = [x.client(), x.client()];
    await replicas[0]!.searchRecent({ query: '#a' });
    const before = x.requests('search_recent');
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => replicas[i % 2]!.searchRecent({ query: '#a' })));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(2);
    expect(results.filter((result) => result.status === 'rejected').every((result) => (result as PromiseRejectedResult).reason instanceof XRateLimitedError)).toBe(true);
    expect(x.requests('search_recent')).toBe(before + 2);
  });

  it('waits for the reset instead of throwing when onRateLimited is wait, making one request after it', async () => {
    x.sim.state.injectFault({ endpoint: 'user_posts', kind: 'rate_limited' });
    const alice = x.sim.state.store.ensureUser('alice');
    const before = x.requests('user_posts');
    const started = Date.now();
    const page = await x.client({ onRateLimited: 'wait' }).userPosts(alice.id);
    expect(page.posts).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(x.requests('user_posts')).toBe(before + 2);
  });

  it('throws in wait mode when the reset is further away than maxRateLimitWaitMs', async () => {
    x.sim.state.injectFault({ endpoint: 'user_posts', kind: 'rate_limited' });
    const alice = x.sim.state.store.ensureUser('alice');
    await expect(x.client({ onRateLimited: 'wait', maxRateLimitWaitMs: 0 }).userPosts(alice.id)).rejects.toBeInstanceOf(XRateLimitedError);
  });

  it('keeps budgets of different key prefixes apart', async () => {
    x.sim.state.injectFault({ endpoint: 'users_by_usernames', kind: 'rate_limited' });
    await expect(x.client().usersByUsernames(['alice'])).rejects.toBeInstanceOf(XRateLimitedError);
    const other = x.client({ keyPrefix: `${x.keyPrefix}:other` });
    await expect(other.usersByUsernames(['alice'])).resolves.toMatchObject({ users: [expect.objectContaining({ username: 'alice' })] });
  });
});

describe('the client against X answers that disagree with the window it remembers', () => {
  // X's own 15-minute window: a remembered reset that far away must not outlast a 429 that says otherwise.
  const x = useXClientFixture();

  /** Drives the simulator over its control API, as a process-level test would. */
  async function control(method: 'POST' | 'PUT', path: string, body: unknown): Promise<void> {
    const response = await fetch(`${x.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  }

  beforeEach(async () => {
    x.sim.state.faults.clear();
    x.sim.state.limiter.setWindowSeconds(900);
    await x.redis.del(`${x.keyPrefix}:xrl:search_recent`);
  });

  it("calls X again at a 429's own reset, seconds away, not at the reset 15 minutes away its window's 200s gave", async () => {
    const first = x.client();
    const second = x.client();
    await first.searchRecent({ query: '#a' });
    expect((await first.readBudget('search_recent'))!.reset * 1000).toBeGreaterThan(Date.now() + 14 * 60_000);
    await control('POST', '/_sim/faults', { endpoint: 'search_recent', kind: 'rate_limited', reset_in_seconds: 2 });
    const before = x.requests('search_recent');

    const limited = (await first.searchRecent({ query: '#a' }).catch((error: unknown) => error)) as XRateLimitedError;
    expect(limited).toBeInstanceOf(XRateLimitedError);
    expect(limited).toMatchObject({ upstream: true });
    expect(limited.resetAt.getTime()).toBeLessThanOrEqual(Date.now() + 3_000);
    // Every replica holds off until then...
    const local = (await second.searchRecent({ query: '#a' }).catch((error: unknown) => error)) as XRateLimitedError;
    expect(local).toMatchObject({ upstream: false, resetAt: limited.resetAt });
    expect(x.requests('search_recent')).toBe(before + 1);

    // ...and calls X again once it has passed.
    await sleepUntil(limited.resetAt.getTime());
    await second.searchRecent({ query: '#a' });
    expect(x.requests('search_recent')).toBe(before + 2);
    const sent = x.sim.state.requestLog.entries({ endpoint: 'search_recent' }).at(-1)!;
    expect(sent.status).toBe(200);
    expect(Date.parse(sent.at)).toBeGreaterThanOrEqual(limited.resetAt.getTime());
  });

  it("in wait mode sleeps until the 429's own reset and then gets its answer", async () => {
    const client = x.client({ onRateLimited: 'wait', maxRateLimitWaitMs: 10_000 });
    await client.searchRecent({ query: '#a' });
    await control('POST', '/_sim/faults', { endpoint: 'search_recent', kind: 'rate_limited', reset_in_seconds: 2 });
    const before = x.requests('search_recent');
    const started = Date.now();
    await expect(client.searchRecent({ query: '#a' })).resolves.toMatchObject({ posts: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(x.requests('search_recent')).toBe(before + 2);
  });

  it("calls X again at a late 429's reset from the window that rolled, though a 200 of the new window arrived first", async () => {
    const first = x.client();
    const second = x.client();
    await control('PUT', '/_sim/rate-limits', { window_seconds: 1 });
    await control('POST', '/_sim/faults', { endpoint: 'search_recent', kind: 'rate_limited', delay_ms: 2_500 });
    const late = first.searchRecent({ query: '#a' }).catch((error: unknown) => error);
    await waitFor(() => x.sim.state.faults.pending().length === 0, 5_000, 'the held request to arrive');

    // While the 429 is held the window rolls, and the new one lasts 15 minutes.
    await control('PUT', '/_sim/rate-limits', { window_seconds: 900 });
    await second.searchRecent({ query: '#a' });
    expect((await second.readBudget('search_recent'))!.reset * 1000).toBeGreaterThan(Date.now() + 14 * 60_000);

    const limited = (await late) as XRateLimitedError;
    expect(limited).toBeInstanceOf(XRateLimitedError);
    expect(limited.resetAt.getTime()).toBeLessThanOrEqual(Date.now() + 2_000);
    const before = x.requests('search_recent');
    await sleepUntil(limited.resetAt.getTime());
    await second.searchRecent({ query: '#a' });
    expect(x.requests('search_recent')).toBe(before + 1);
  });
});

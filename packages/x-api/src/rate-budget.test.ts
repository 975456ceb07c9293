import { XRateLimitedError } from './x-errors';
import { useXSim } from './test-support/x-sim-harness';

const sleepUntil = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now() + 50)));

describe('the shared rate budget across replicas', () => {
  const x = useXSim({ rateLimitWindowSeconds: 2, rateLimits: { search_recent: { app: 3 }, user_posts: { app: 100 } } });

  beforeEach(async () => {
    x.sim.state.faults.clear();
    x.sim.state.limiter.setWindowSeconds(2);
    await x.redis.del(...['search_recent', 'posts_lookup', 'user_posts', 'users_by_usernames'].map((name) => `${x.keyPrefix}:xrl:${name}`));
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

import { useXClientFixture } from './test-support/x-client-fixture';
import type { XEndpointName } from './x-endpoints';
import type { XRequestObserver } from './x-transport';

type Heard = { endpoint: XEndpointName; status: number | null; remaining: number | null };

function recorder(): XRequestObserver & { heard: Heard[] } {
  const heard: Heard[] = [];
  return { heard, request: (endpoint, status, remaining) => heard.push({ endpoint, status, remaining }) };
}

describe('XClientOptions.observer', () => {
  const x = useXClientFixture();

  beforeAll(() => {
    x.sim.state.createUser({ username: 'alice', name: 'Alice' });
  });

  it('hears each answered request with its status and the remaining budget X reported', async () => {
    const observer = recorder();
    await x.client({ observer }).userByUsername('alice');
    await x.client({ observer }).userByUsername('alice');
    expect(observer.heard).toHaveLength(2);
    expect(observer.heard[0]).toEqual({ endpoint: 'user_by_username', status: 200, remaining: expect.any(Number) });
    expect(observer.heard[1]!.remaining).toBe(observer.heard[0]!.remaining! - 1);
  });

  it('hears a refused request and a timed-out one (status null), and nothing for input refused before sending', async () => {
    const observer = recorder();
    x.sim.state.injectFault({ endpoint: 'posts_lookup', kind: 'unavailable' });
    await expect(x.client({ observer }).postsByIds(['1'])).rejects.toThrow();
    x.sim.state.injectFault({ endpoint: 'retweeted_by', kind: 'slow', delay_ms: 500 });
    await expect(x.client({ observer, timeoutMs: 100 }).retweetedBy('1')).rejects.toThrow();
    await expect(x.client({ observer }).postsByIds(['not-an-id'])).rejects.toThrow();
    expect(observer.heard.map(({ endpoint, status }) => ({ endpoint, status }))).toEqual([
      { endpoint: 'posts_lookup', status: 503 },
      { endpoint: 'retweeted_by', status: null },
    ]);
  });

  it('hears a 429 with the empty budget X reported', async () => {
    const observer = recorder();
    x.sim.state.injectFault({ endpoint: 'users_by_usernames', kind: 'rate_limited', body: 'problem' });
    await expect(x.client({ observer }).usersByUsernames(['alice'])).rejects.toThrow();
    expect(observer.heard).toEqual([{ endpoint: 'users_by_usernames', status: 429, remaining: 0 }]);
  });
});

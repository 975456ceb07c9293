import { startTestSimulator, useTestSimulator } from './test-simulator';
import { APP_TOKEN, USER_TOKEN } from './test-tokens';

const search = (url: string, token: string) =>
  fetch(`${url}/2/tweets/search/recent?query=%23btc`, { headers: { authorization: `Bearer ${token}` } });

describe('useTestSimulator', () => {
  const simulator = useTestSimulator({ naming: 'v2.167' });

  it('serves X on a loopback port with the options given and counts requests per endpoint', async () => {
    expect(simulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    simulator.sim.state.injectPost({ author: 'alice', text: 'gm #btc' });
    const before = simulator.requests('search_recent');
    const body = (await (await search(simulator.url, APP_TOKEN)).json()) as { data: { text: string }[] };
    expect(body.data.map((post) => post.text)).toEqual(['gm #btc']);
    expect((await search(simulator.url, USER_TOKEN)).status).toBe(200);
    expect(simulator.requests('search_recent')).toBe(before + 2);
    expect(simulator.sim.state.settings.naming).toBe('v2.167');
  });
});

describe('startTestSimulator', () => {
  it('stops listening once closed', async () => {
    const simulator = await startTestSimulator();
    expect((await search(simulator.url, APP_TOKEN)).status).toBe(200);
    await simulator.close();
    await expect(search(simulator.url, APP_TOKEN)).rejects.toThrow();
  });
});


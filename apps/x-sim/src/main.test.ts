import path from 'node:path';
import { useMainProcesses } from '@hashwatch/testing';

// Each case starts a real process that compiles TypeScript on the fly: seconds, more on a busy machine.
jest.setTimeout(90_000);

describe('x-sim process', () => {
  const processes = useMainProcesses(path.join(__dirname, 'main.ts'));
  /** Starts src/main.ts with only PATH, HOME and `env`, so the test runner's variables do not leak in. */
  const start = (env: Record<string, string>) => {
    const started = processes.start({ env });
    return { ...started, listening: async () => (JSON.parse(await started.line('"x-sim listening"')) as { url: string }).url };
  };

  const search = (url: string, query: string, token: string) =>
    fetch(`${url}/2/tweets/search/recent?query=${encodeURIComponent(query)}`, { headers: { authorization: `Bearer ${token}` } });

  it('exits 1 with one line naming X_SIM_PORT when it is not a port', async () => {
    const sim = start({ X_SIM_PORT: 'eighty' });
    expect(await sim.exit).toBe(1);
    expect(sim.output().trim()).toMatch(/^invalid environment: X_SIM_PORT [^\n]+$/);
  });

  it('serves its X_SIM_* settings, takes a query limit below the suite-wide minimum, and exits 0 on SIGTERM', async () => {
    const sim = start({
      X_SIM_PORT: '0',
      X_SIM_HOST: '127.0.0.1',
      X_SIM_NAMING: 'v2.167',
      X_SIM_APP_TOKENS: 'app-one, app-two',
      X_SIM_GENERATOR: 'false',
      X_QUERY_MAX_LENGTH: '20',
      X_SIM_INDEX_LAG_MS: '',
      LOG_LEVEL: 'info',
    });
    const url = await sim.listening();
    const health = (await (await fetch(`${url}/_sim/health`)).json()) as { ok: boolean; naming: string; posts: number };
    expect(health).toEqual({ ok: true, naming: 'v2.167', posts: 0 });
    expect((await search(url, '#a', 'app-two')).status).toBe(200);
    expect((await search(url, '#a', 'x-sim-app-token')).status).toBe(401);
    expect((await search(url, '#abcdefghijklmnopqrstuvwxyz', 'app-one')).status).toBe(400);
    sim.child.kill('SIGTERM');
    expect(await sim.exit).toBe(0);
  });

  it('lets in the suite\'s X_BEARER_TOKEN when X_SIM_APP_TOKENS is unset', async () => {
    const sim = start({ X_SIM_PORT: '0', X_SIM_HOST: '127.0.0.1', X_SIM_GENERATOR: '0', X_BEARER_TOKEN: 'suite-token' });
    const url = await sim.listening();
    expect((await search(url, '#a', 'suite-token')).status).toBe(200);
    expect((await search(url, '#a', 'x-sim-app-token')).status).toBe(401);
    sim.child.kill('SIGINT');
    expect(await sim.exit).toBe(0);
  });
});

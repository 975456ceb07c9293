import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

// tsx reads this workspace's tsconfig paths, so @hashwatch/* resolve to sources and no build is needed.
const WORKSPACE = path.resolve(__dirname, '..');

// Each case starts a real process that compiles TypeScript on the fly: seconds, more on a busy machine.
jest.setTimeout(90_000);

interface Started {
  child: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
  /** Resolves with the address from the "x-sim listening" line. */
  listening: Promise<string>;
}

describe('x-sim process', () => {
  const children = new Set<ChildProcess>();
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  /** Starts src/main.ts with only PATH, HOME and `env`, so the test runner's variables do not leak in. */
  function start(env: Record<string, string>): Started {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'main.ts')], {
      cwd: WORKSPACE,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    });
    children.add(child);
    let text = '';
    let announce: (url: string) => void = () => undefined;
    const listening = new Promise<string>((resolve) => (announce = resolve));
    const read = (chunk: Buffer) => {
      text += String(chunk);
      const line = text.split('\n').find((candidate) => candidate.includes('"x-sim listening"'));
      if (line) announce((JSON.parse(line) as { url: string }).url);
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    const exit = once(child, 'exit').then(([code]) => {
      children.delete(child);
      return code as number | null;
    });
    return { child, output: () => text, exit, listening };
  }

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
    const url = await Promise.race([sim.listening, sim.exit.then(() => Promise.reject(new Error(sim.output())))]);
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
    const url = await Promise.race([sim.listening, sim.exit.then(() => Promise.reject(new Error(sim.output())))]);
    expect((await search(url, '#a', 'suite-token')).status).toBe(200);
    expect((await search(url, '#a', 'x-sim-app-token')).status).toBe(401);
    sim.child.kill('SIGINT');
    expect(await sim.exit).toBe(0);
  });
});

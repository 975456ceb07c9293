import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createCipher, generateSecretsKey, verifySecretsKey } from '@hashwatch/secrets';
import { useTestEnvironment, waitFor } from '@hashwatch/testing';

// tsx reads this workspace's tsconfig paths, so @hashwatch/* resolve to sources and no build is needed.
const WORKSPACE = path.resolve(__dirname, '..');

// Each case starts a real process that compiles TypeScript on the fly: seconds, more on a busy machine.
jest.setTimeout(90_000);

describe('notifier process', () => {
  const env = useTestEnvironment();
  const children = new Set<ChildProcess>();
  const sealedKey = generateSecretsKey();

  beforeAll(async () => {
    await verifySecretsKey(async (sql, values) => (await env.database.db.pool.query(sql, values)).rows, createCipher(sealedKey));
  });
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  function start(keys: Record<string, string>): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'main.ts')], {
      cwd: WORKSPACE,
      env: { ...process.env, DATABASE_URL: env.database.url, REDIS_URL: env.redisUrl, QUEUE_PREFIX: env.queuePrefix, HEALTH_PORT: '0', LOG_LEVEL: 'info', ...keys },
    });
    children.add(child);
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => (text += String(chunk)));
    child.stderr?.on('data', (chunk: Buffer) => (text += String(chunk)));
    const exit = once(child, 'exit').then(([code]) => {
      children.delete(child);
      return code as number | null;
    });
    return { child, output: () => text, exit };
  }

  it('exits 1 with one line naming SECRETS_KEY when its key cannot open the stored secrets', async () => {
    const notifier = start({ SECRETS_KEY: generateSecretsKey() });
    expect(await notifier.exit).toBe(1);
    const lines = notifier.output().split('\n').filter((line) => line.includes('SECRETS_KEY'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^SECRETS_KEY \(nor SECRETS_KEY_PREVIOUS, when set\) does not open the key check value/);
    expect(notifier.output()).not.toContain('notifier started');
  });

  it('starts when the key the secrets were sealed with is given as SECRETS_KEY_PREVIOUS', async () => {
    const notifier = start({ SECRETS_KEY: generateSecretsKey(), SECRETS_KEY_PREVIOUS: sealedKey });
    await waitFor(async () => notifier.output().includes('"notifier started"'), 60_000, 'the notifier to start');
    notifier.child.kill('SIGTERM');
    expect(await notifier.exit).toBe(0);
  });
});

import path from 'node:path';
import { createCipher, generateSecretsKey, verifySecretsKey } from '@hashwatch/secrets';
import { useMainProcesses, useTestEnvironment } from '@hashwatch/testing';

// Each case starts a real process that compiles TypeScript on the fly: seconds, more on a busy machine.
jest.setTimeout(90_000);

describe('notifier process', () => {
  const env = useTestEnvironment();
  const processes = useMainProcesses(path.join(__dirname, 'main.ts'));
  const sealedKey = generateSecretsKey();

  beforeAll(async () => {
    await verifySecretsKey(async (sql, values) => (await env.database.db.pool.query(sql, values)).rows, createCipher(sealedKey));
  });

  const start = (keys: Record<string, string>) =>
    processes.start({
      inherit: true,
      env: { DATABASE_URL: env.database.url, ...env.redisEnv, QUEUE_PREFIX: env.queuePrefix, HEALTH_PORT: '0', LOG_LEVEL: 'info', ...keys },
    });

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
    await notifier.line('"notifier started"');
    notifier.child.kill('SIGTERM');
    expect(await notifier.exit).toBe(0);
  });
});

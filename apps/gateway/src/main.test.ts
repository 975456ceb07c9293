import { request as httpRequest, Agent } from 'node:http';
import path from 'node:path';
import { createAccount } from '@hashwatch/accounts';
import { createCipher, generateSecretsKey, verifySecretsKey } from '@hashwatch/secrets';
import { freePort, useMainProcesses, useTestEnvironment, waitFor } from '@hashwatch/testing';

// Each case starts a real process that compiles TypeScript on the fly: seconds, more on a busy machine.
jest.setTimeout(90_000);

function get(port: number, urlPath: string, headers: Record<string, string> = {}, agent?: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: urlPath, headers, agent }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += String(chunk)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('gateway process', () => {
  const env = useTestEnvironment();
  const processes = useMainProcesses(path.join(__dirname, 'main.ts'));
  const start = (vars: Record<string, string>) => processes.start({ inherit: true, env: { LOG_LEVEL: 'info', ...vars } });
  const baseEnv = () => ({ DATABASE_URL: env.database.url, REDIS_URL: env.redisUrl, QUEUE_PREFIX: env.queuePrefix, SECRETS_KEY: generateSecretsKey() });

  // Each case starts from a database whose secrets no key has claimed yet.
  beforeEach(async () => {
    await env.database.db.pool.query('DELETE FROM secrets_key_checks');
  });

  it('serves health and the API, then on SIGTERM closes an idle keep-alive connection and exits 0', async () => {
    const port = await freePort();
    const gateway = start({ ...baseEnv(), PORT: String(port) });
    try {
      await waitFor(async () => (await get(port, '/healthz').catch(() => undefined))?.status === 200, 60_000, 'the gateway to answer /healthz');
      // Live is not ready: Redis may still be connecting when /healthz first answers.
      await waitFor(async () => (await get(port, '/readyz')).status === 200, 60_000, 'the gateway to be ready');
      const ready = await get(port, '/readyz');
      expect([ready.status, JSON.parse(ready.body)]).toEqual([200, { status: 'ready', checks: { postgres: 'ok', redis: 'ok' } }]);
      const { apiKey } = await createAccount(env.database.db.prisma, { email: 'process@example.com', planId: 'starter' });
      const agent = new Agent({ keepAlive: true });
      const tracks = await get(port, '/v1/tracks', { Authorization: `Bearer ${apiKey}` }, agent);
      expect(tracks).toEqual({ status: 200, body: '{"data":[]}' });
      gateway.signal('SIGTERM');
      expect(await gateway.exit).toBe(0);
      agent.destroy();
      const stopped = gateway.output().split('\n').filter((line) => line.includes('"gateway stopped"'));
      expect(stopped).toHaveLength(1);
      expect(gateway.output()).not.toContain(apiKey);
    } finally {
      gateway.signal('SIGKILL');
    }
  });

  it.each([
    ['PORT', { PORT: 'not-a-port' }, /invalid environment: PORT/],
    ['SECRETS_KEY', { SECRETS_KEY: '' }, /SECRETS_KEY is required/],
    ['SECRETS_KEY', { SECRETS_KEY: 'c2hvcnQ=' }, /invalid environment: SECRETS_KEY/],
  ])('exits 1 naming %s when it is wrong', async (_name, overrides, message) => {
    const gateway = start({ ...baseEnv(), PORT: '0', ...overrides });
    try {
      expect(await gateway.exit).toBe(1);
      expect(gateway.output()).toMatch(message);
    } finally {
      gateway.signal('SIGKILL');
    }
  });

  describe('when SECRETS_KEY cannot open the secrets already in the database', () => {
    const sealedKey = generateSecretsKey();
    beforeEach(async () => {
      const query = async (sql: string, values: unknown[]) => (await env.database.db.pool.query(sql, values)).rows;
      await verifySecretsKey(query, createCipher(sealedKey));
    });

    it('exits 1 within seconds with one line naming SECRETS_KEY, before it listens', async () => {
      const port = await freePort();
      const gateway = start({ ...baseEnv(), PORT: String(port) });
      try {
        expect(await gateway.exit).toBe(1);
        const lines = gateway.output().split('\n').filter((line) => line.includes('SECRETS_KEY'));
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/^SECRETS_KEY \(nor SECRETS_KEY_PREVIOUS, when set\) does not open the key check value/);
        expect(gateway.output()).not.toContain(sealedKey);
        expect(gateway.output()).not.toContain('gateway listening');
      } finally {
        gateway.signal('SIGKILL');
      }
    });

    it('starts when the old key is given as SECRETS_KEY_PREVIOUS', async () => {
      const port = await freePort();
      const gateway = start({ ...baseEnv(), PORT: String(port), SECRETS_KEY_PREVIOUS: sealedKey });
      try {
        await waitFor(async () => (await get(port, '/healthz').catch(() => undefined))?.status === 200, 60_000, 'the gateway to answer /healthz');
      } finally {
        gateway.signal('SIGKILL');
      }
    });
  });
});

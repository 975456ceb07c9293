import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConfigError, configSchema, loadConfig, redisTargetOf, requiredSecretsKey } from './config';

describe('loadConfig', () => {
  it('applies the documented defaults (docs/CONFIGURATION.md) when the environment is empty', () => {
    const config = loadConfig(configSchema, {});
    expect(config).toMatchObject({
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/hashwatch',
      REDIS_URL: 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: 'hw',
      PORT: 3000,
      X_API_BASE_URL: 'https://api.x.com',
      X_QUERY_MAX_LENGTH: 512,
      TELEGRAM_API_BASE_URL: 'https://api.telegram.org',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: false,
      ALERT_MAX_AGE_SECONDS: 900,
      LOG_LEVEL: 'info',
    });
    expect(config.SECRETS_KEY).toBeUndefined();
  });

  it('parses numbers and booleans from strings', () => {
    const key = randomBytes(32).toString('base64');
    const config = loadConfig(configSchema, { PORT: '8080', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', SECRETS_KEY: key });
    expect(config.PORT).toBe(8080);
    expect(config.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(true);
    expect(config.SECRETS_KEY).toBe(key);
  });

  it('takes SECRETS_KEY_PREVIOUS in the format of SECRETS_KEY and names it when it is malformed', () => {
    const previous = randomBytes(32).toString('base64');
    expect(loadConfig(configSchema, { SECRETS_KEY_PREVIOUS: previous }).SECRETS_KEY_PREVIOUS).toBe(previous);
    expect(loadConfig(configSchema, {}).SECRETS_KEY_PREVIOUS).toBeUndefined();
    expect(() => loadConfig(configSchema, { SECRETS_KEY_PREVIOUS: 'c2hvcnQ=' })).toThrow(/^invalid environment: SECRETS_KEY_PREVIOUS must be 32 random bytes/);
  });

  it('reads ALERT_MAX_AGE_SECONDS as whole seconds and names it when it is not a positive integer', () => {
    expect(loadConfig(configSchema, { ALERT_MAX_AGE_SECONDS: '5' }).ALERT_MAX_AGE_SECONDS).toBe(5);
    expect(() => loadConfig(configSchema, { ALERT_MAX_AGE_SECONDS: '0' })).toThrow(/^invalid environment: ALERT_MAX_AGE_SECONDS /);
    expect(() => loadConfig(configSchema, { ALERT_MAX_AGE_SECONDS: '1.5' })).toThrow(/^invalid environment: ALERT_MAX_AGE_SECONDS /);
  });

  it('reads METRICS_TOKEN as 16 or more printable characters, unset by default, and names it when it is not', () => {
    expect(loadConfig(configSchema, {}).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig(configSchema, { METRICS_TOKEN: 'prometheus-scrape-token' }).METRICS_TOKEN).toBe('prometheus-scrape-token');
    for (const bad of ['short', 'a token with spaces in it']) {
      expect(() => loadConfig(configSchema, { METRICS_TOKEN: bad })).toThrow(/METRICS_TOKEN must be 16 to 500 printable characters without spaces/);
    }
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(configSchema, { PORT: '' }).PORT).toBe(3000);
  });

  it('names every bad variable in the error', () => {
    let thrown: unknown;
    try {
      loadConfig(configSchema, { PORT: 'eighty', SECRETS_KEY: 'short', REDIS_URL: 'http://x' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const message = (thrown as Error).message;
    expect(message).toContain('PORT');
    expect(message).toContain('SECRETS_KEY');
    expect(message).toContain('REDIS_URL');
  });

  it('reads REDIS_CLUSTER_NODES as host:port pairs, which win over REDIS_URL', () => {
    const config = loadConfig(configSchema, { REDIS_URL: 'redis://10.0.0.9:6379', REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b.internal:7001' });
    expect(config.REDIS_CLUSTER_NODES).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-b.internal', port: 7001 },
    ]);
    expect(redisTargetOf(config)).toEqual({ clusterNodes: config.REDIS_CLUSTER_NODES });
    expect(redisTargetOf(loadConfig(configSchema, { REDIS_URL: 'redis://10.0.0.9:6379' }))).toBe('redis://10.0.0.9:6379');
  });

  it('signs in to every cluster node with REDIS_CLUSTER_USERNAME/PASSWORD, over TLS with REDIS_CLUSTER_TLS', () => {
    const nodes = { REDIS_CLUSTER_NODES: '10.0.0.1:7000' };
    const secured = loadConfig(configSchema, { ...nodes, REDIS_CLUSTER_USERNAME: 'hashwatch', REDIS_CLUSTER_PASSWORD: 'p4ss', REDIS_CLUSTER_TLS: 'true' });
    expect(redisTargetOf(secured)).toEqual({ clusterNodes: [{ host: '10.0.0.1', port: 7000 }], username: 'hashwatch', password: 'p4ss', tls: true });
    // Empty values (docker-compose, a ConfigMap) mean none; without nodes they are not used at all.
    expect(redisTargetOf(loadConfig(configSchema, { ...nodes, REDIS_CLUSTER_PASSWORD: '', REDIS_CLUSTER_TLS: '' }))).toEqual({ clusterNodes: [{ host: '10.0.0.1', port: 7000 }] });
    expect(redisTargetOf(loadConfig(configSchema, { REDIS_CLUSTER_PASSWORD: 'p4ss' }))).toBe('redis://127.0.0.1:6379');
    expect(() => loadConfig(configSchema, { ...nodes, REDIS_CLUSTER_TLS: 'yes' })).toThrow(/REDIS_CLUSTER_TLS/);
  });

  it('names REDIS_CLUSTER_NODES when an entry is not host:port', () => {
    for (const bad of ['10.0.0.1', '10.0.0.1:7000,', 'redis://10.0.0.1:7000', '10.0.0.1:99999']) {
      expect(() => loadConfig(configSchema, { REDIS_CLUSTER_NODES: bad })).toThrow(/^invalid environment: REDIS_CLUSTER_NODES /);
    }
  });

  it('rejects a queue prefix with characters that would break Redis key patterns', () => {
    expect(() => loadConfig(configSchema, { QUEUE_PREFIX: 'a*b' })).toThrow(/QUEUE_PREFIX/);
  });

  it('reads an app\'s own variables from the shared schema extended, with the same rules', () => {
    const schema = configSchema.extend({ APP_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000) });
    expect(loadConfig(schema, { APP_TIMEOUT_MS: '500', PORT: '8080' })).toMatchObject({ APP_TIMEOUT_MS: 500, PORT: 8080, QUEUE_PREFIX: 'hw' });
    expect(loadConfig(schema, { APP_TIMEOUT_MS: '' }).APP_TIMEOUT_MS).toBe(10_000);
    expect(() => loadConfig(schema, { APP_TIMEOUT_MS: '5', PORT: 'eighty' })).toThrow(/^invalid environment: (?=.*APP_TIMEOUT_MS Too small)(?=.*PORT )/);
  });

  it('names SECRETS_KEY as required when an app asks for it and it is unset or empty', () => {
    const schema = configSchema.extend({ SECRETS_KEY: requiredSecretsKey });
    expect(() => loadConfig(schema, {})).toThrow(/^invalid environment: SECRETS_KEY is required: 32 random bytes, base64/);
    expect(() => loadConfig(schema, { SECRETS_KEY: '' })).toThrow(/SECRETS_KEY is required/);
    expect(() => loadConfig(schema, { SECRETS_KEY: 'c2hvcnQ=' })).toThrow(/^invalid environment: SECRETS_KEY must be 32 random bytes/);
    const key = randomBytes(32).toString('base64');
    expect(loadConfig(schema, { SECRETS_KEY: key }).SECRETS_KEY).toBe(key);
  });
});

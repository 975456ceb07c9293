import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { loadConfig } from '@hashwatch/config';
import { createSender } from '@hashwatch/channels';
import { createDatabase } from '@hashwatch/db';
import { createLogger } from '@hashwatch/logger';
import { createCipher, verifySecretsKey } from '@hashwatch/secrets';
import { createApp } from './app';

/** Composition root of the gateway: configuration, clients, the app, and an orderly shutdown. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('gateway', { level: config.LOG_LEVEL });
  if (!config.SECRETS_KEY) {
    logger.error('SECRETS_KEY is required: 32 random bytes, base64 (it seals TOTP secrets and signs cursors)');
    process.exit(1);
  }
  // 10 connections per replica: one Node process keeps them busy, and with 20 PostgreSQL spent more CPU per
  // request switching between backends (bench/posts-feed.ts, POSTS_BENCH_POOL).
  const db = createDatabase(config.DATABASE_URL, { max: 10, applicationName: 'hashwatch-gateway' });
  const cipher = createCipher(config.SECRETS_KEY, config.SECRETS_KEY_PREVIOUS);
  // Before the port opens: a key that cannot open the stored secrets stops the gateway here, with one line
  // naming SECRETS_KEY, instead of failing request after request.
  try {
    const outcome = await verifySecretsKey(async (sql, values) => (await db.pool.query(sql, values)).rows, cipher);
    logger.info('secrets key verified', { outcome });
  } catch (error) {
    await db.close();
    throw error;
  }
  // Rate limits must not queue commands while Redis is away: the insurance limiter answers instead.
  // Auto-pipelining: under load, the rate-limit scripts of concurrent requests share one socket write
  // and one read instead of a round trip each (bench/posts-feed.ts).
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, enableAutoPipelining: true });
  redis.on('error', (error: Error) => logger.warn('redis connection error', { error: error.message }));
  // Test alerts go out through the same SSRF-guarded sender the notifier uses.
  const sender = createSender({ allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS, timeoutMs: 10_000 });
  const app = createApp({
    db,
    redis,
    logger,
    cipher,
    secretsKey: config.SECRETS_KEY,
    keyPrefix: config.QUEUE_PREFIX,
    now: () => new Date(),
    notifications: { sender, telegramBaseUrl: config.TELEGRAM_API_BASE_URL, allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS },
  });
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(config.PORT, () => logger.info('gateway listening', { port: config.PORT }));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('gateway stopping', { signal });
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close(async () => {
      sender.close();
      await db.close();
      redis.disconnect();
      logger.info('gateway stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});

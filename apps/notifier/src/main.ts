import { createSender } from '@hashwatch/channels';
import { loadConfig, redisTargetOf } from '@hashwatch/config';
import { databaseTargetOf, openDatabase } from '@hashwatch/db';
import { createShutdown, runMain, startHealthServer } from '@hashwatch/lifecycle';
import { createLogger } from '@hashwatch/logger';
import { connectWorkerQueues } from '@hashwatch/queues';
import { openVerifiedCipher } from '@hashwatch/secrets';
import { notifierConfig } from './notifier-config';
import { startNotifier } from './start-notifier';

const DEFAULT_HEALTH_PORT = 4003;


/** Composition root of the notifier: configuration, clients, workers, health server and ordered shutdown. */
async function main(): Promise<void> {
  const config = loadConfig(notifierConfig);
  const logger = createLogger('notifier', { level: config.LOG_LEVEL });
  // No session state: through a transaction pooler (DATABASE_DIRECT_URL set) its statements go unnamed.
  const db = openDatabase(databaseTargetOf(config), { max: 20, applicationName: 'hashwatch-notifier' });
  // Before any worker starts: a key that cannot open the stored secrets stops the notifier here, with one line
  // naming SECRETS_KEY, instead of failing every delivery of every channel.
  const { cipher, outcome } = await openVerifiedCipher(config, async (sql, values) => (await db.pool.query(sql, values)).rows);
  logger.info('secrets key verified', { outcome });
  const shutdown = createShutdown({ logger });
  shutdown.listen();
  shutdown.onShutdown('database', () => db.close());
  const redis = connectWorkerQueues(redisTargetOf(config), { app: 'notifier', prefix: config.QUEUE_PREFIX, logger });
  shutdown.onShutdown('redis', () => redis.close());
  const sender = createSender({
    allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    timeoutMs: config.NOTIFIER_SEND_TIMEOUT_MS,
    firstByteTimeoutMs: config.NOTIFIER_SEND_FIRST_BYTE_TIMEOUT_MS,
  });
  shutdown.onShutdown('sender', () => sender.close());

  // Schedulers are upserted at start, and the producer connection refuses commands until it is connected.
  await redis.ready();
  const notifier = await startNotifier({
    pool: db.pool,
    workerConnection: redis.worker,
    redis: redis.producer,
    queues: redis.queues,
    cipher,
    sender,
    logger,
    telegramBaseUrl: config.TELEGRAM_API_BASE_URL,
    options: {
      sendTimeoutMs: config.NOTIFIER_SEND_TIMEOUT_MS,
      concurrency: config.NOTIFIER_CONCURRENCY,
      localDrains: config.NOTIFIER_CONCURRENCY,
      maxSendsPerAccount: config.NOTIFIER_MAX_SENDS_PER_ACCOUNT,
      channelFailingAfterMs: config.NOTIFIER_CHANNEL_FAILING_AFTER_SECONDS * 1000,
      channelDisableAfterMs: config.NOTIFIER_CHANNEL_DISABLE_AFTER_SECONDS * 1000,
      alertMaxAgeMs: config.ALERT_MAX_AGE_SECONDS * 1000,
    },
  });
  // Stopped before the connections: running sends finish and record their outcome.
  shutdown.onShutdown('workers', () => notifier.close());

  const health = await startHealthServer({
    port: config.HEALTH_PORT ?? DEFAULT_HEALTH_PORT,
    checks: { database: () => db.pool.query('SELECT 1'), redis: () => redis.producer.ping() },
    metrics: () => notifier.metrics.render(),
    metricsToken: config.METRICS_TOKEN,
    logger,
    isShuttingDown: () => shutdown.isShuttingDown(),
  });
  shutdown.onShutdown('health server', () => health.close());
  logger.info('notifier started', {
    healthPort: health.port,
    concurrency: notifier.options.concurrency,
    sendTimeoutMs: notifier.options.sendTimeoutMs,
    sendFirstByteTimeoutMs: Math.min(config.NOTIFIER_SEND_FIRST_BYTE_TIMEOUT_MS, config.NOTIFIER_SEND_TIMEOUT_MS),
    maxSendsPerAccount: notifier.options.maxSendsPerAccount,
    alertMaxAgeSeconds: notifier.options.alertMaxAgeMs / 1000,
  });
}

runMain(main);

import { z } from 'zod';
import { createSender } from '@hashwatch/channels';
import { loadConfig } from '@hashwatch/config';
import { createDatabase } from '@hashwatch/db';
import { createShutdown, startHealthServer } from '@hashwatch/lifecycle';
import { createLogger } from '@hashwatch/logger';
import { createQueues, createRedisConnection } from '@hashwatch/queues';
import { createCipher, verifySecretsKey } from '@hashwatch/secrets';
import { startNotifier } from './start-notifier';

const DEFAULT_HEALTH_PORT = 4003;

/** The notifier's own tuning variables, beside the suite's shared ones (README.md, Configuration); all optional. */
const tuningSchema = z.object({
  NOTIFIER_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  NOTIFIER_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(50),
});

/** Composition root of the notifier: configuration, clients, workers, health server and ordered shutdown. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('notifier', { level: config.LOG_LEVEL });
  const present = Object.fromEntries(Object.entries(process.env).filter(([key, value]) => key.startsWith('NOTIFIER_') && value !== ''));
  const tuning = tuningSchema.safeParse(present);
  if (!tuning.success) {
    throw new Error(`invalid environment: ${tuning.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`).join('; ')}`);
  }
  if (!config.SECRETS_KEY) throw new Error('invalid environment: SECRETS_KEY is required (it unseals webhook signing secrets and bot tokens)');

  const db = createDatabase(config.DATABASE_URL, { max: 20, applicationName: 'hashwatch-notifier' });
  const cipher = createCipher(config.SECRETS_KEY, config.SECRETS_KEY_PREVIOUS);
  // Before any worker starts: a key that cannot open the stored secrets stops the notifier here, with one line
  // naming SECRETS_KEY, instead of failing every delivery of every channel.
  try {
    const outcome = await verifySecretsKey(async (sql, values) => (await db.pool.query(sql, values)).rows, cipher);
    logger.info('secrets key verified', { outcome });
  } catch (error) {
    await db.close();
    throw error;
  }
  const shutdown = createShutdown({ logger });
  shutdown.listen();
  shutdown.onShutdown('database', () => db.close());
  const workerConnection = createRedisConnection(config.REDIS_URL, { role: 'worker', connectionName: 'hashwatch-notifier-worker', logger });
  const redis = createRedisConnection(config.REDIS_URL, { role: 'producer', connectionName: 'hashwatch-notifier', logger });
  shutdown.onShutdown('redis', async () => {
    await Promise.allSettled([workerConnection.quit(), redis.quit()]);
  });
  const queues = createQueues({ connection: redis, prefix: config.QUEUE_PREFIX, logger });
  shutdown.onShutdown('queues', () => queues.close());
  const sender = createSender({ allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS, timeoutMs: tuning.data.NOTIFIER_SEND_TIMEOUT_MS });
  shutdown.onShutdown('sender', () => sender.close());

  // A producer connection refuses commands until it is connected: wait for it before upserting schedulers.
  if (redis.status !== 'ready') await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  const notifier = await startNotifier({
    pool: db.pool,
    workerConnection,
    redis,
    queues,
    cipher,
    sender,
    logger,
    telegramBaseUrl: config.TELEGRAM_API_BASE_URL,
    options: {
      sendTimeoutMs: tuning.data.NOTIFIER_SEND_TIMEOUT_MS,
      concurrency: tuning.data.NOTIFIER_CONCURRENCY,
      localDrains: tuning.data.NOTIFIER_CONCURRENCY,
    },
  });
  // Stopped before the connections: running sends finish and record their outcome.
  shutdown.onShutdown('workers', () => notifier.close());

  const health = await startHealthServer({
    port: config.HEALTH_PORT ?? DEFAULT_HEALTH_PORT,
    checks: {
      database: async () => {
        await db.pool.query('SELECT 1');
      },
      redis: async () => {
        await redis.ping();
      },
    },
    metrics: () => notifier.metrics.render(),
    logger,
    isShuttingDown: () => shutdown.isShuttingDown(),
  });
  shutdown.onShutdown('health server', () => health.close());
  logger.info('notifier started', { healthPort: health.port, concurrency: notifier.options.concurrency, sendTimeoutMs: notifier.options.sendTimeoutMs });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});

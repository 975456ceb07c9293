import { loadConfig } from '@hashwatch/config';
import { createDatabase } from '@hashwatch/db';
import { createShutdown, startHealthServer } from '@hashwatch/lifecycle';
import { createLogger } from '@hashwatch/logger';
import { createQueues, createRedisConnection } from '@hashwatch/queues';
import { createXClient } from '@hashwatch/x-api';
import { ensureRelayScheduler, reconcileScanSchedulers } from './scan-schedulers';
import { createScanner } from './scanner';
import { startScannerWorkers } from './scanner-workers';

const DEFAULT_HEALTH_PORT = 4001;

/** Composition root of the scanner: configuration, clients, the workers, health, and an ordered shutdown. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('scanner', { level: config.LOG_LEVEL });
  if (!config.X_BEARER_TOKEN) {
    logger.error('X_BEARER_TOKEN is required: the app-only bearer token for X API v2');
    process.exit(1);
  }
  const shutdown = createShutdown({ logger });
  shutdown.listen();

  const db = createDatabase(config.DATABASE_URL, { max: 20, applicationName: 'hashwatch-scanner' });
  const workerConnection = createRedisConnection(config.REDIS_URL, { role: 'worker', connectionName: 'hashwatch-scanner-worker', logger });
  const producerConnection = createRedisConnection(config.REDIS_URL, { role: 'producer', connectionName: 'hashwatch-scanner-producer', logger });
  const queues = createQueues({ connection: producerConnection, prefix: config.QUEUE_PREFIX, logger });
  const x = createXClient({
    baseUrl: config.X_API_BASE_URL,
    bearerToken: config.X_BEARER_TOKEN,
    redis: producerConnection,
    keyPrefix: config.QUEUE_PREFIX,
    maxQueryLength: config.X_QUERY_MAX_LENGTH,
    logger,
  });
  const scanner = createScanner({ pool: db.pool, x, queues, logger, maxQueryLength: config.X_QUERY_MAX_LENGTH });

  // Registered first so it closes last: probes see 503 while everything else stops.
  const health = await startHealthServer({
    port: config.HEALTH_PORT ?? DEFAULT_HEALTH_PORT,
    logger,
    isShuttingDown: shutdown.isShuttingDown,
    checks: {
      postgres: async () => {
        await db.pool.query('SELECT 1');
      },
      redis: async () => {
        await producerConnection.ping();
      },
    },
    metrics: () => scanner.metrics.render(),
  });
  shutdown.onShutdown('health server', () => health.close());
  shutdown.onShutdown('database', () => db.close());
  shutdown.onShutdown('redis', () => {
    producerConnection.disconnect();
    workerConnection.disconnect();
  });
  shutdown.onShutdown('queues', () => queues.close());

  await ensureRelayScheduler(queues);
  await reconcileScanSchedulers(db.pool, queues);
  const workers = startScannerWorkers({ pool: db.pool, queues, scanner, connection: workerConnection, prefix: config.QUEUE_PREFIX, logger });
  // Last registered, first closed: running ticks finish before the database and Redis go away.
  shutdown.onShutdown('workers', () => Promise.all(workers.map((worker) => worker.close())));
  logger.info('scanner started', { healthPort: health.port, prefix: config.QUEUE_PREFIX, maxQueryLength: config.X_QUERY_MAX_LENGTH });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});

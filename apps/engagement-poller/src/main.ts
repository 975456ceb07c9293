import { loadConfig, redisTargetOf } from '@hashwatch/config';
import { databaseTargetOf, openDatabase } from '@hashwatch/db';
import { createShutdown, runMain, startHealthServer } from '@hashwatch/lifecycle';
import { createLogger } from '@hashwatch/logger';
import { relayOutbox } from '@hashwatch/outbox';
import { connectWorkerQueues } from '@hashwatch/queues';
import { createXClient } from '@hashwatch/x-api';
import { createEngagementPoller } from './engagement-poller';
import { pollerConfig } from './poller-config';
import { createPollerMetrics } from './poller-metrics';
import { startPollerWorker } from './poller-workers';
import { reconcileRefreshSchedulers } from './scheduling/refresh-schedulers';

const DEFAULT_HEALTH_PORT = 4002;


/** Composition root of the engagement poller: configuration, clients, the worker, health, and an ordered shutdown. */
async function main(): Promise<void> {
  const config = loadConfig(pollerConfig);
  const logger = createLogger('engagement-poller', { level: config.LOG_LEVEL });
  if (!config.X_USER_TOKEN) {
    logger.warn('X_USER_TOKEN is not set: like counts stay real, but likers are not sampled and no like alerts are sent');
  }
  const shutdown = createShutdown({ logger });
  shutdown.listen();

  // Lookup batches and samples each hold one connection through their X call, plus discovery and relay.
  // No session state: through a transaction pooler (DATABASE_DIRECT_URL set) its statements go unnamed.
  const db = openDatabase(databaseTargetOf(config), { max: 12, applicationName: 'hashwatch-engagement-poller' });
  const redis = connectWorkerQueues(redisTargetOf(config), { app: 'engagement', prefix: config.QUEUE_PREFIX, logger });
  const { queues } = redis;
  const metrics = createPollerMetrics();
  const x = createXClient({
    baseUrl: config.X_API_BASE_URL,
    bearerToken: config.X_BEARER_TOKEN,
    ...(config.X_USER_TOKEN ? { userToken: config.X_USER_TOKEN } : {}),
    redis: redis.producer,
    keyPrefix: config.QUEUE_PREFIX,
    maxQueryLength: config.X_QUERY_MAX_LENGTH,
    logger,
    observer: metrics.x.observer,
  });
  const poller = createEngagementPoller({
    pool: db.pool,
    x,
    redis: redis.producer,
    keyPrefix: config.QUEUE_PREFIX,
    logger,
    now: () => new Date(),
    relay: () => relayOutbox(db.pool, queues, { onInvalid: (jobId, error) => logger.error('outbox row dropped', { jobId, error }) }),
    options: { likesSampled: config.X_USER_TOKEN !== undefined },
    metrics,
  });

  // Registered first so it closes last: probes see 503 while everything else stops.
  const health = await startHealthServer({
    port: config.HEALTH_PORT ?? DEFAULT_HEALTH_PORT,
    logger,
    isShuttingDown: shutdown.isShuttingDown,
    checks: { postgres: () => db.pool.query('SELECT 1'), redis: () => redis.producer.ping() },
    metrics: () => metrics.registry.metrics(),
    metricsToken: config.METRICS_TOKEN,
  });
  shutdown.onShutdown('health server', () => health.close());
  shutdown.onShutdown('database', () => db.close());
  shutdown.onShutdown('redis', () => redis.close());

  await reconcileRefreshSchedulers(db.pool, queues);
  const worker = startPollerWorker({ pool: db.pool, queues, poller, connection: redis.worker, prefix: config.QUEUE_PREFIX, logger });
  // Last registered, first closed: a running cycle finishes before the database and Redis go away.
  shutdown.onShutdown('worker', () => worker.close());
  logger.info('engagement poller started', { healthPort: health.port, prefix: config.QUEUE_PREFIX, likesSampled: config.X_USER_TOKEN !== undefined });
}

runMain(main);

import { loadConfig, redisTargetOf } from '@hashwatch/config';
import { databaseTargetOf, openDatabases } from '@hashwatch/db';
import { createShutdown, runMain, startHealthServer } from '@hashwatch/lifecycle';
import { createLogger } from '@hashwatch/logger';
import { connectWorkerQueues, removeScheduler } from '@hashwatch/queues';
import { createXClient } from '@hashwatch/x-api';
import { COMPLIANCE_SCHEDULER_ID, ensureComplianceScheduler, ensureSweepScheduler, startMaintenanceWorker } from './maintenance/maintenance-worker';
import { reconcileScanSchedulers } from './scan-schedulers';
import { createScanner } from './scanner';
import { createScannerMetrics } from './scanner-metrics';
import { startScannerWorkers } from './scanner-workers';
import { DEFAULT_SEARCH_BUDGET } from './sources/fair-shares';
import { scannerConfig } from './scanner-config';
import { startStreamHolder } from './stream/stream-holder';

const DEFAULT_HEALTH_PORT = 4001;


/** Composition root of the scanner: configuration, clients, the workers, health, and an ordered shutdown. */
async function main(): Promise<void> {
  const config = loadConfig(scannerConfig);
  const logger = createLogger('scanner', { level: config.LOG_LEVEL });
  const shutdown = createShutdown({ logger });
  shutdown.listen();

  // Statements and transactions on DATABASE_URL (a transaction pooler or not); the session advisory locks of claims,
  // gap back-fills, the stream lease and compliance steps on DATABASE_DIRECT_URL's own small pool.
  const { db, direct, close: closeDatabases } = openDatabases(databaseTargetOf(config), { max: 20, directMax: 8, applicationName: 'hashwatch-scanner' });
  const redis = connectWorkerQueues(redisTargetOf(config), { app: 'scanner', prefix: config.QUEUE_PREFIX, logger });
  const { queues } = redis;
  const metrics = createScannerMetrics();
  const x = createXClient({
    baseUrl: config.X_API_BASE_URL,
    bearerToken: config.X_BEARER_TOKEN,
    redis: redis.producer,
    keyPrefix: config.QUEUE_PREFIX,
    maxQueryLength: config.X_QUERY_MAX_LENGTH,
    logger,
    observer: metrics.x.observer,
  });
  const scanner = createScanner({ pool: db.pool, sessionPool: direct, x, queues, logger, maxQueryLength: config.X_QUERY_MAX_LENGTH,
    metrics,
    sourceNotices: { failingCycles: config.SOURCE_FAILING_CYCLES },
    searchBudget: config.SCANNER_SEARCH_BUDGET > 0 ? { requests: config.SCANNER_SEARCH_BUDGET, windowSeconds: DEFAULT_SEARCH_BUDGET.windowSeconds } : null,
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
  shutdown.onShutdown('database', () => closeDatabases());
  shutdown.onShutdown('redis', () => redis.close());

  await reconcileScanSchedulers(db.pool, queues);
  await ensureSweepScheduler(queues, config.RETENTION_SWEEP_SECONDS * 1000);
  if (config.X_COMPLIANCE_SECONDS > 0) await ensureComplianceScheduler(queues, config.X_COMPLIANCE_SECONDS * 1000);
  else await removeScheduler(queues, 'maintenance', COMPLIANCE_SCHEDULER_ID);
  const workers = [
    ...startScannerWorkers({ pool: db.pool, queues, scanner, connection: redis.worker, prefix: config.QUEUE_PREFIX, logger }),
    startMaintenanceWorker({ pool: db.pool, sessionPool: direct, connection: redis.worker, prefix: config.QUEUE_PREFIX, logger, ...(config.X_COMPLIANCE_SECONDS > 0 ? { x } : {}) }),
  ];
  // Last registered, first closed: running ticks finish before the database and Redis go away.
  shutdown.onShutdown('workers', () => Promise.all(workers.map((worker) => worker.close())));
  if (config.X_STREAM) {
    const stream = startStreamHolder({
      pool: db.pool,
      sessionPool: direct,
      x,
      queues,
      logger,
      metrics,
      limits: { maxRules: config.X_STREAM_MAX_RULES, maxLength: config.X_STREAM_RULE_MAX_LENGTH },
      notices: { failingCycles: config.SOURCE_FAILING_CYCLES },
      timing: { marginSeconds: config.X_STREAM_MARGIN_SECONDS, staleSeconds: config.X_STREAM_STALE_SECONDS },
    });
    // Closed before the workers: what the stream received is stored and its coverage recorded while the database is there.
    shutdown.onShutdown('stream', () => stream.stop());
  }
  logger.info('scanner started', { healthPort: health.port, prefix: config.QUEUE_PREFIX, maxQueryLength: config.X_QUERY_MAX_LENGTH, stream: config.X_STREAM });
}

runMain(main);

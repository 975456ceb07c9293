import { createServer } from 'node:http';
import type { Queue } from 'bullmq';
import { createManualBilling, createStripeBilling } from '@hashwatch/billing';
import { loadConfig, redisTargetOf } from '@hashwatch/config';
import { createSender } from '@hashwatch/channels';
import { databaseTargetOf, openDatabase, type Database } from '@hashwatch/db';
import { createShutdown, runMain, type Shutdown } from '@hashwatch/lifecycle';
import { createLogger, type Logger } from '@hashwatch/logger';
import { createMailer } from '@hashwatch/mail';
import { createQueues, createRedisConnection, formerLayoutQueues, untilReady, type Queues, type RedisClient } from '@hashwatch/queues';
import { openVerifiedCipher } from '@hashwatch/secrets';
import { createApp } from './app';
import type { GatewayDeps } from './deps';
import { createGatewayMetrics } from './metrics/gateway-metrics';
import { gatewayConfigSchema, type GatewayConfig } from './gateway-config';
import type { SelfServiceOptions } from './routes/session/self-service-options';

/** BILLING_PROVIDER's provider and, under Stripe, its webhook handler. */
function billingFrom(config: GatewayConfig, db: Database): Pick<SelfServiceOptions, 'billing' | 'stripeWebhook'> {
  if (config.BILLING_PROVIDER === 'manual') return { billing: createManualBilling({ publicUrl: config.PUBLIC_URL }), stripeWebhook: null };
  // The config schema requires every STRIPE_* but the base URL under BILLING_PROVIDER=stripe.
  const stripe = createStripeBilling({
    secretKey: config.STRIPE_SECRET_KEY ?? '',
    webhookSecret: config.STRIPE_WEBHOOK_SECRET ?? '',
    prices: { starter: config.STRIPE_PRICE_STARTER ?? '', pro: config.STRIPE_PRICE_PRO ?? '', business: config.STRIPE_PRICE_BUSINESS ?? '' },
    ...(config.STRIPE_API_BASE_URL ? { apiBaseUrl: config.STRIPE_API_BASE_URL } : {}),
    pool: db.pool,
  });
  return { billing: stripe.provider, stripeWebhook: stripe.handleWebhook };
}

/**
 * The queue console's credentials and queues when ADMIN_USER and ADMIN_PASSWORD are set (else undefined: nothing is
 * mounted), with the queues an upgrade left under the former key layout, so their failed jobs can be retried. Those
 * are read once Redis answers, without holding up the start: the gateway serves while Redis is still away.
 */
function queueConsoleFrom(config: GatewayConfig, logger: Logger, queues: Queues, connection: RedisClient, shutdown: Shutdown): GatewayDeps['queueConsole'] {
  if (config.ADMIN_USER === undefined || config.ADMIN_PASSWORD === undefined) return undefined;
  const opened: Queue[] = [];
  shutdown.onShutdown('former queues', async () => {
    await Promise.all(opened.map((queue) => queue.close()));
  });
  const formerQueues = untilReady(connection)
    .then(() => formerLayoutQueues(queues, connection))
    .then((found) => {
      opened.push(...found);
      if (found.length > 0) logger.info('queue console: queues left under the former key layout', { queues: found.map((queue) => queue.name) });
      return found;
    });
  logger.info('queue console mounted', { path: '/admin/queues' });
  return { credentials: { user: config.ADMIN_USER, password: config.ADMIN_PASSWORD }, queues, formerQueues };
}

/** Composition root of the gateway: configuration, clients, the app, and an orderly shutdown. */
async function main(): Promise<void> {
  const config = loadConfig(gatewayConfigSchema);
  const logger = createLogger('gateway', { level: config.LOG_LEVEL });
  // 10 connections per replica: one Node process keeps them busy, and more cost PostgreSQL more CPU per
  // request switching between backends (docs/BENCHMARKS.md, the feed bench's pool size).
  // Through a transaction pooler (DATABASE_DIRECT_URL set) its statements go unnamed; it holds no session state.
  const db = openDatabase(databaseTargetOf(config), { max: 10, applicationName: 'hashwatch-gateway' });
  // Before the port opens: a key that cannot open the stored secrets stops the gateway here, with one line
  // naming SECRETS_KEY, instead of failing request after request.
  const { cipher, outcome } = await openVerifiedCipher(config, async (sql, values) => (await db.pool.query(sql, values)).rows);
  logger.info('secrets key verified', { outcome });
  const shutdown = createShutdown({ logger, timeoutMs: 10_000 });
  // Registered first, so it runs last: one line once everything is closed.
  shutdown.onShutdown('stopped', () => logger.info('gateway stopped'));
  shutdown.onShutdown('database', () => db.close());
  // Rate limits must not queue commands while Redis is away: the insurance limiter answers instead.
  // Auto-pipelining: under load, the rate-limit scripts of concurrent requests share one socket write
  // and one read instead of a round trip each (bench/posts-feed.ts).
  // A producer connection (fails fast), on one server or a cluster (REDIS_CLUSTER_NODES).
  const redis = createRedisConnection(redisTargetOf(config), { role: 'producer', connectionName: 'hashwatch-gateway', logger, autoPipelining: true });
  shutdown.onShutdown('redis', () => redis.disconnect());
  // Test alerts go out through the same SSRF-guarded sender the notifier uses.
  const sender = createSender({ allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS, timeoutMs: 10_000 });
  shutdown.onShutdown('sender', () => sender.close());
  // Password-reset links go out through SMTP_URL; without it a reset request is logged as undeliverable.
  const mailer = config.SMTP_URL ? createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, logger }) : null;
  if (mailer) shutdown.onShutdown('mailer', () => mailer.close());
  else logger.warn('SMTP_URL is not set: password-reset mails cannot be sent');
  // Queue backlog for GET /metrics (read at scrape time) and the queue console: the queues on a producer connection
  // of their own, which fails at once while Redis is away.
  const queueRedis = createRedisConnection(redisTargetOf(config), { role: 'producer', connectionName: 'hashwatch-gateway-queues', logger });
  const queues = createQueues({ connection: queueRedis, prefix: config.QUEUE_PREFIX, logger });
  shutdown.onShutdown('queue redis', async () => queueRedis.disconnect());
  shutdown.onShutdown('queues', () => queues.close());
  const queueConsole = queueConsoleFrom(config, logger, queues, queueRedis, shutdown);
  const app = createApp({
    metrics: createGatewayMetrics({ logger, queues }),
    metricsToken: config.METRICS_TOKEN,
    db,
    redis,
    logger,
    cipher,
    secretsKey: config.SECRETS_KEY,
    keyPrefix: config.QUEUE_PREFIX,
    now: () => new Date(),
    notifications: { sender, telegramBaseUrl: config.TELEGRAM_API_BASE_URL, allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS },
    selfService: { ...billingFrom(config, db), autoActivate: config.BILLING_AUTO_ACTIVATE, publicUrl: config.PUBLIC_URL, mailer },
    trustProxy: config.TRUST_PROXY,
    ...(queueConsole ? { queueConsole } : {}),
  });
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(config.PORT, () => logger.info('gateway listening', { port: config.PORT }));

  // Last registered, first closed: requests in flight finish, idle keep-alive connections close at once.
  shutdown.onShutdown('http server', async () => {
    const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    server.closeIdleConnections();
    await closed;
  });
  shutdown.listen();
}

runMain(main);

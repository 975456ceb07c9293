import type pg from 'pg';
import type { Sender } from '@hashwatch/channels';
import type { Logger } from '@hashwatch/logger';
import { startOutboxRelay } from '@hashwatch/outbox';
import { defineWorker, duplicateConnection, untilReady, type Queues, type RedisClient } from '@hashwatch/queues';
import type { Cipher } from '@hashwatch/secrets';
import { createAccountSends } from './delivery/account-sends';
import { startDeliverySweeper } from './delivery/delivery-sweeper';
import { createDeliveredWriter } from './delivery/delivery-store';
import { createDestinationPace } from './delivery/destination-pace';
import { drainChannel, drainWithLease } from './delivery/drain-channel.job';
import type { DrainDeps } from './delivery/drain-contract';
import { createDrainScheduler, type DrainScheduler } from './delivery/drain-scheduler';
import type { NoticeCheckResult } from './health/notice-checks';
import { fanOutNotice } from './notices/fan-out-notice';
import { createNotifierMetrics, type NotifierMetrics } from './notifier-metrics';
import { leaseStallMs, resolveNotifierOptions, type NotifierOptions } from './notifier-options';
import { createRouteBatcher } from './routing/route-alert.job';

export interface NotifierDeps {
  pool: pg.Pool;
  /** For BullMQ workers: `createRedisConnection(url, { role: 'worker' })`. */
  workerConnection: RedisClient;
  /** For leases, pace buckets and the sweeper lock: fails fast while Redis is away. */
  redis: RedisClient;
  /** Producer queues (drain wakes, the relay's enqueues). */
  queues: Queues;
  cipher: Cipher;
  sender: Sender;
  logger: Logger;
  /** `TELEGRAM_API_BASE_URL`. */
  telegramBaseUrl: string;
  options?: Partial<NotifierOptions>;
  metrics?: NotifierMetrics;
}

export interface RunningNotifier {
  drains: DrainScheduler;
  metrics: NotifierMetrics;
  options: NotifierOptions;
  /** The notices' time-based checks, now (the sweeper runs them every tick on one replica). */
  checkNotices(): Promise<NoticeCheckResult>;
  /** Stops the sweeper, then the workers (waiting for running jobs). Connections stay open for their owner. */
  close(): Promise<void>;
}

/**
 * Starts everything one notifier replica runs: the routing worker, the delivery worker (drains), the outbox
 * relay (@hashwatch/outbox) and the sweeper. Any number of replicas can run this at once.
 */
export async function startNotifier(deps: NotifierDeps): Promise<RunningNotifier> {
  const options = resolveNotifierOptions(deps.options);
  const metrics = deps.metrics ?? createNotifierMetrics();
  const { pool, queues, logger } = deps;
  // Leases, wake flags and pace reservations of many drains at once: one connection that sends the commands
  // issued in the same tick together (auto-pipelining), beside the one the queues use. Fails fast like it.
  const redis = duplicateConnection(deps.redis, { autoPipelining: true, connectionName: 'hashwatch-notifier-drains' });
  redis.on('error', (error: Error) => logger.warn('redis connection error', { role: 'drains', error }));
  await untilReady(redis);
  const { drains, drainDeps, deliveredWriter } = createDrains(deps, redis, options, metrics);
  const workers = [
    ...startWorkers(deps, drainDeps, options),
    // The one scheduled relay (writers relay their own rows right after their commit; this moves the rest).
    await startOutboxRelay({ pool, queues, everyMs: options.relayIntervalMs, connection: deps.workerConnection, prefix: queues.prefix, logger, observeWait: metrics.observeWait }),
  ];
  const sweeper = startDeliverySweeper({
    pool,
    redis,
    drains,
    prefix: queues.prefix,
    intervalMs: options.sweepIntervalMs,
    notices: { failingAfterMs: options.channelFailingAfterMs, disableAfterMs: options.channelDisableAfterMs },
    logger,
  });

  return {
    drains,
    metrics,
    options,
    checkNotices: () => sweeper.checkNotices(),
    async close() {
      await sweeper.stop();
      await Promise.all(workers.map((worker) => worker.close()));
      // Inline drains started by the last routing jobs finish and record their outcome.
      await drains.close();
      await deliveredWriter.close();
      redis.disconnect();
    },
  };
}

/** The drain scheduler (jobs, and inline drains right after routing) and what every drain run shares. */
function createDrains(deps: NotifierDeps, redis: RedisClient, options: NotifierOptions, metrics: NotifierMetrics) {
  const { pool, queues, logger } = deps;
  const drainLog = logger.child({ queue: 'alert-deliveries', job: 'drain-channel', inline: true });
  const drains: DrainScheduler = createDrainScheduler(queues, redis, {
    ...(options.localDrains > 0
      ? {
          local: {
            capacity: options.localDrains,
            leaseMs: options.leaseMs,
            heartbeatWhileMs: leaseStallMs(options),
            run: async (channelId, lease) => {
              try {
                await drainWithLease(drainDeps, channelId, lease, drainLog);
              } catch (error) {
                // The lease is released; what was claimed falls due again, and a job (or the sweeper) resumes.
                drainLog.warn('inline drain failed', { channelId, error });
                await drains.wake(channelId, 1_000).catch(() => undefined);
              }
            },
          },
        }
      : {}),
  });
  const deliveredWriter = createDeliveredWriter(pool, (error) => logger.warn('delivered marks not written; those deliveries will be sent again', { error }));
  const drainDeps: DrainDeps = {
    pool,
    redis,
    pace: createDestinationPace(redis),
    accountSends: createAccountSends(options.maxSendsPerAccount),
    drains,
    cipher: deps.cipher,
    sender: deps.sender,
    telegramBaseUrl: deps.telegramBaseUrl,
    prefix: queues.prefix,
    options,
    metrics,
    batchHints: new Map<string, number>(),
    deliveredWriter,
  };
  return { drains, drainDeps, deliveredWriter };
}

/** The routing and delivery workers of one replica. */
function startWorkers(deps: NotifierDeps, drainDeps: DrainDeps, options: NotifierOptions) {
  const { pool, queues, logger } = deps;
  const { drains, metrics } = drainDeps;
  const workerOptions = { connection: deps.workerConnection, prefix: queues.prefix, concurrency: options.concurrency, logger, observeWait: metrics.observeWait };
  const router = createRouteBatcher({ pool, drains, metrics, alertMaxAgeMs: options.alertMaxAgeMs });
  const routing = defineWorker(
    'alert-routing',
    {
      'route-alerts': async (payload, _job, log) => {
        const results = await router.routeMany(payload.items, log);
        return { items: results.length, channels: sum(results, 'channels'), created: sum(results, 'created') };
      },
    },
    workerOptions,
  );
  const deliveries = defineWorker(
    'alert-deliveries',
    {
      'drain-channel': (payload, _job, log) => drainChannel(drainDeps, payload.channelId, log),
      // Written by the gateway's POST /notifications/deliveries/{id}/retry (through the outbox): the delivery is
      // pending and due again, so its channel's drain sends it, in order with the rest.
      'deliver-alert': async (payload) => {
        const { rows } = await pool.query<{ channel_id: string }>('SELECT channel_id FROM deliveries WHERE id = $1', [payload.deliveryId]);
        if (rows[0]) await drains.wake(rows[0].channel_id);
        return { woken: rows.length };
      },
      // Written with a notice's opening or resolution (@hashwatch/notices): one send per channel that takes
      // notices, each drained with that channel's alerts.
      'deliver-notice': async (payload) => {
        const channels = await fanOutNotice(pool, payload.noticeId, payload.state);
        await Promise.all(channels.map((channelId) => drains.wake(channelId)));
        return { channels: channels.length };
      },
    },
    workerOptions,
  );
  return [routing, deliveries];
}

function sum<K extends string>(rows: readonly Record<K, number>[], key: K): number {
  return rows.reduce((total, row) => total + row[key], 0);
}

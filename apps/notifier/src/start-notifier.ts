import type pg from 'pg';
import type { Redis } from 'ioredis';
import type { Sender } from '@hashwatch/channels';
import type { Logger } from '@hashwatch/logger';
import { relayOutbox } from '@hashwatch/outbox';
import { cadenceSchedulerId, defineWorker, upsertScheduler, type Queues } from '@hashwatch/queues';
import type { Cipher } from '@hashwatch/secrets';
import { startDeliverySweeper } from './delivery/delivery-sweeper';
import { createDestinationPace } from './delivery/destination-pace';
import { drainChannel } from './delivery/drain-channel.job';
import { createDrainScheduler, type DrainScheduler } from './delivery/drain-scheduler';
import { createNotifierMetrics, type NotifierMetrics } from './notifier-metrics';
import { resolveNotifierOptions, type NotifierOptions } from './notifier-options';
import { routeAlert } from './routing/route-alert.job';

export interface NotifierDeps {
  pool: pg.Pool;
  /** For BullMQ workers: `createRedisConnection(url, { role: 'worker' })`. */
  workerConnection: Redis;
  /** For leases, pace buckets and the sweeper lock: fails fast while Redis is away. */
  redis: Redis;
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
  /** Stops the sweeper, then the workers (waiting for running jobs). Connections stay open for their owner. */
  close(): Promise<void>;
}

/**
 * Starts everything one notifier replica runs: the routing worker, the delivery worker (drains), the outbox
 * relay worker and its scheduler, and the sweeper. Any number of replicas can run this at once.
 */
export async function startNotifier(deps: NotifierDeps): Promise<RunningNotifier> {
  const options = resolveNotifierOptions(deps.options);
  const metrics = deps.metrics ?? createNotifierMetrics();
  const { pool, queues, logger } = deps;
  const prefix = queues.prefix;
  const drains = createDrainScheduler(queues, deps.redis);
  const drainDeps = {
    pool,
    redis: deps.redis,
    pace: createDestinationPace(deps.redis),
    drains,
    cipher: deps.cipher,
    sender: deps.sender,
    telegramBaseUrl: deps.telegramBaseUrl,
    prefix,
    options,
    metrics,
  };
  const workerOptions = { connection: deps.workerConnection, prefix, concurrency: options.concurrency, logger };

  const routing = defineWorker('alert-routing', { 'route-alert': (payload, _job, log) => routeAlert({ pool, drains, metrics }, payload, log) }, workerOptions);
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
      'deliver-digest': async (payload) => {
        await drains.wake(payload.channelId);
      },
    },
    workerOptions,
  );
  const relay = defineWorker(
    'outbox-relay',
    {
      'relay-outbox': async () => ({
        relayed: await relayOutbox(pool, queues, { onInvalid: (jobId, error) => logger.error('outbox row dropped', { jobId, error }) }),
      }),
    },
    { ...workerOptions, concurrency: 1 },
  );
  // The scanner relays right after its commit; this tick is the backstop for a crash in between.
  await upsertScheduler(queues, 'outbox-relay', 'relay-outbox', {}, {
    schedulerId: cadenceSchedulerId('relay-outbox', Math.max(1, Math.round(options.relayIntervalMs / 1000))),
    everyMs: options.relayIntervalMs,
  });
  const sweeper = startDeliverySweeper({ pool, redis: deps.redis, drains, prefix, intervalMs: options.sweepIntervalMs, logger });

  return {
    drains,
    metrics,
    options,
    async close() {
      await sweeper.stop();
      await Promise.all([routing.close(), deliveries.close(), relay.close()]);
    },
  };
}

import type pg from 'pg';
import {
  cadenceSchedulerId,
  defineWorker,
  listSchedulers,
  removeScheduler,
  upsertScheduler,
  type DefineWorkerOptions,
  type DefinedWorker,
  type Queues,
} from '@hashwatch/queues';
import { relayOutboxUntilEmpty } from './outbox';

export interface OutboxRelayOptions extends Omit<DefineWorkerOptions, 'concurrency'> {
  pool: pg.Pool;
  queues: Queues;
  /** How often the relay runs: the longest a committed row waits when its writer did not relay it. */
  everyMs: number;
}

/**
 * The outbox relay, the one place that moves outbox rows to BullMQ on a schedule (writers relay their own rows
 * right after their commit; this moves what a crash or a Redis outage left, and what writers without a BullMQ
 * connection wrote: the gateway and the admin CLI). One `relay-outbox` scheduler of `everyMs`: the schedulers of
 * other cadences (another replica's setting, an older release's) are removed, so the relay ticks once per
 * period however many replicas run it. Relays are disjoint (`FOR UPDATE SKIP LOCKED`) and a repeated job id is
 * a no-op, so replicas running it at once are safe.
 */
export async function startOutboxRelay(options: OutboxRelayOptions): Promise<DefinedWorker<'outbox-relay'>> {
  const { pool, queues, everyMs, ...workerOptions } = options;
  const { logger } = workerOptions;
  const schedulerId = cadenceSchedulerId('relay-outbox', Math.max(1, Math.round(everyMs / 1000)));
  await upsertScheduler(queues, 'outbox-relay', 'relay-outbox', {}, { schedulerId, everyMs });
  for (const scheduler of await listSchedulers(queues, 'outbox-relay')) {
    if (scheduler.id !== schedulerId && (await removeScheduler(queues, 'outbox-relay', scheduler.id))) {
      logger.info('outbox relay scheduler replaced', { removed: scheduler.id, kept: schedulerId });
    }
  }
  return defineWorker(
    'outbox-relay',
    {
      'relay-outbox': async (_payload, _job, log) => {
        const relayed = await relayOutboxUntilEmpty(pool, queues, { onInvalid: (jobId, error) => log.error('outbox row dropped', { jobId, error }) });
        if (relayed > 0) log.info('outbox relayed', { relayed });
        return { relayed };
      },
    },
    { ...workerOptions, concurrency: 1 },
  );
}

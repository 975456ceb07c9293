import type pg from 'pg';
import type { Logger } from '@hashwatch/logger';
import { defineWorker, tickLatenessMs, type DefinedWorker, type Queues, type RedisClient } from '@hashwatch/queues';
import type { EngagementPoller } from './engagement-poller';
import { reconcileRefreshSchedulers } from './scheduling/refresh-schedulers';

export interface PollerWorkerOptions {
  pool: pg.Pool;
  queues: Queues;
  poller: EngagementPoller;
  /** A `worker` role connection (BullMQ blocks on it). */
  connection: RedisClient;
  prefix: string;
  logger: Logger;
}

/**
 * The `engagement-refreshes` worker: `refresh-engagement` runs one cycle as of its tick's slot (and keeps the
 * schedulers in line with the cadences in use); `reconcile-schedulers`, written with a cadence change, does the
 * latter at once; `sample-engagement` samples one post at once, within the same budget. One job at a time per
 * replica: a cycle is parallel inside, and a second one would only contend with it.
 */
export function startPollerWorker(options: PollerWorkerOptions): DefinedWorker<'engagement-refreshes'> {
  const { pool, queues, poller, connection, prefix, logger } = options;
  const reconcile = async (log: Logger) => {
    const changes = await reconcileRefreshSchedulers(pool, queues);
    if (changes.added.length > 0 || changes.removed.length > 0) log.info('engagement schedulers changed', { ...changes });
    return changes;
  };
  return defineWorker(
    'engagement-refreshes',
    {
      'refresh-engagement': async (payload, job, log) => {
        // As of the slot: a post rescheduled one interval after it is due at the next slot, not a few
        // milliseconds after, which would make it wait for the slot after that (twice its cadence).
        const report = await poller.runCycle({ lateByMs: tickLatenessMs(job, payload.intervalSeconds) });
        await reconcile(log);
        return report;
      },
      // A new scheduler's first tick runs at once, and that cycle moves the changed accounts' posts to their cadence.
      'reconcile-schedulers': async (_payload, _job, log) => reconcile(log),
      'sample-engagement': async (payload) => poller.sampleNow(payload.xPostId),
    },
    { connection, prefix, concurrency: 1, logger, observeWait: (queue, seconds) => poller.metrics.queue.jobWait.observe({ queue }, seconds) },
  );
}

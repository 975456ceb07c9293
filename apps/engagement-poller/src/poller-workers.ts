import type pg from 'pg';
import type { Redis } from 'ioredis';
import type { Logger } from '@hashwatch/logger';
import { defineWorker, type DefinedWorker, type Queues } from '@hashwatch/queues';
import type { EngagementPoller } from './engagement-poller';
import { reconcileRefreshSchedulers } from './scheduling/refresh-schedulers';

export interface PollerWorkerOptions {
  pool: pg.Pool;
  queues: Queues;
  poller: EngagementPoller;
  /** A `worker` role connection (BullMQ blocks on it). */
  connection: Redis;
  prefix: string;
  logger: Logger;
}

/**
 * The `engagement-refreshes` worker: `refresh-engagement` runs one cycle (and keeps the schedulers in line
 * with the cadences in use); `sample-engagement` samples one post at once, within the same budget. One job at
 * a time per replica: a cycle is parallel inside, and a second one would only contend with it.
 */
export function startPollerWorker(options: PollerWorkerOptions): DefinedWorker<'engagement-refreshes'> {
  const { pool, queues, poller, connection, prefix, logger } = options;
  return defineWorker(
    'engagement-refreshes',
    {
      'refresh-engagement': async (_payload, _job, log) => {
        const report = await poller.runCycle();
        const changes = await reconcileRefreshSchedulers(pool, queues);
        if (changes.added.length > 0 || changes.removed.length > 0) log.info('engagement schedulers changed', { ...changes });
        return report;
      },
      'sample-engagement': async (payload) => poller.sampleNow(payload.xPostId),
    },
    { connection, prefix, concurrency: 1, logger },
  );
}

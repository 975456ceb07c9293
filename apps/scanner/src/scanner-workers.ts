import type pg from 'pg';
import type { Logger } from '@hashwatch/logger';
import { defineWorker, tickLatenessMs, type DefinedWorker, type Queues, type RedisClient } from '@hashwatch/queues';
import { reconcileScanSchedulers } from './scan-schedulers';
import type { Scanner } from './scanner';

export interface ScannerWorkerOptions {
  pool: pg.Pool;
  queues: Queues;
  scanner: Scanner;
  /** A `worker` role connection (BullMQ blocks on it). */
  connection: RedisClient;
  prefix: string;
  logger: Logger;
  /** Ticks one replica runs at once. Default 2: a slow tick does not hold up the next cadence's. */
  concurrency?: number;
}

/**
 * The scanner's BullMQ workers: `source-scans` / `scan-sources` runs a tick as of its slot (any cadence's tick
 * scans every source that is due, then keeps the schedulers in line with the cadences in use),
 * `source-scans` / `reconcile-schedulers` (written with a cadence change) does the latter at once. The outbox
 * rows a tick committed but could not relay are the notifier's outbox relay's.
 */
export function startScannerWorkers(options: ScannerWorkerOptions): DefinedWorker<'source-scans'>[] {
  const { pool, queues, scanner, connection, prefix, logger } = options;
  const observeWait = (queue: string, seconds: number) => scanner.metrics.queue.jobWait.observe({ queue }, seconds);
  const reconcile = async (log: Logger) => {
    const changes = await reconcileScanSchedulers(pool, queues);
    if (changes.added.length > 0 || changes.removed.length > 0) log.info('scan schedulers changed', { ...changes });
    return changes;
  };
  const scans = defineWorker(
    'source-scans',
    {
      'scan-sources': async (payload, job, log) => {
        // As of the slot: a source pushed one interval ahead of its due time is due at the next slot, whatever
        // the jitter of picking ticks up.
        const summary = await scanner.runTick({ at: new Date(Date.now() - tickLatenessMs(job, payload.intervalSeconds)) });
        await reconcile(log);
        return summary;
      },
      // Written with a cadence change: a new scheduler's first tick runs at once and syncs the sources to it.
      'reconcile-schedulers': async (_payload, _job, log) => reconcile(log),
    },
    { connection, prefix, concurrency: options.concurrency ?? 2, logger, observeWait },
  );
  return [scans];
}

import type pg from 'pg';
import type { Logger } from '@hashwatch/logger';
import { defineWorker, upsertScheduler, type DefinedWorker, type Queues, type RedisClient } from '@hashwatch/queues';
import type { XClient } from '@hashwatch/x-api';
import { checkCompliance, type ComplianceSettings } from './compliance-check';
import { sweepRetention, type SweepLimits } from './retention-sweep';

/** The one scheduler of the sweep: a fixed id, so every replica's start-up upserts the same one. */
export const SWEEP_SCHEDULER_ID = 'sweep-retention';
/** Every 10 minutes: a run deletes what expired since the last, well within its budget once caught up. */
export const SWEEP_EVERY_MS = 10 * 60_000;

/** Creates the sweep's scheduler, or leaves the existing one as it is (same id, same cadence). */
export async function ensureSweepScheduler(queues: Queues, everyMs: number = SWEEP_EVERY_MS): Promise<void> {
  await upsertScheduler(queues, 'maintenance', 'sweep-retention', {}, { schedulerId: SWEEP_SCHEDULER_ID, everyMs });
}

/** The one scheduler of X's batch compliance, like the sweep's. */
export const COMPLIANCE_SCHEDULER_ID = 'check-compliance';
/** Every 15 minutes: a job's status is read at most 96 times a day (X allows 150 reads per 15 minutes). */
export const COMPLIANCE_EVERY_MS = 15 * 60_000;

export async function ensureComplianceScheduler(queues: Queues, everyMs: number = COMPLIANCE_EVERY_MS): Promise<void> {
  await upsertScheduler(queues, 'maintenance', 'check-compliance', {}, { schedulerId: COMPLIANCE_SCHEDULER_ID, everyMs });
}

export interface MaintenanceWorkerOptions {
  pool: pg.Pool;
  /** Direct PostgreSQL sessions (DATABASE_DIRECT_URL): compliance steps hold a session lock. Default `pool`. */
  sessionPool?: pg.Pool;
  /** A `worker` role connection (BullMQ blocks on it). */
  connection: RedisClient;
  prefix: string;
  logger: Logger;
  limits?: Partial<SweepLimits>;
  /** X's batch compliance runs through it; without it, `check-compliance` jobs do nothing. */
  x?: XClient;
  compliance?: Partial<ComplianceSettings>;
}

/**
 * The scanner's `maintenance` worker: one sweep at a time per replica. Replicas may run sweeps at once (a run
 * outliving its lock, a manual job): each batch skips rows another holds, so they share the work.
 */
export function startMaintenanceWorker(options: MaintenanceWorkerOptions): DefinedWorker<'maintenance'> {
  const { pool, connection, prefix, logger, limits, x, compliance } = options;
  // A run may take minutes (its budget); closing ends it after the batch in hand, so a stopping scanner is not
  // held past its shutdown bound. The rest is the next run's, on whichever replica takes it.
  const stopping = new AbortController();
  const defined = defineWorker(
    'maintenance',
    {
      'sweep-retention': async (_payload, _job, log) => {
        const summary = await sweepRetention(pool, { limits, signal: stopping.signal });
        log.info('retention swept', { ...summary, stopped: stopping.signal.aborted });
        return summary;
      },
      'check-compliance': async (_payload, _job, log) => {
        if (!x) return { step: 'off' };
        const step = await checkCompliance(options.sessionPool ?? pool, x, logger, { settings: compliance });
        log.info('x compliance checked', step);
        return step;
      },
    },
    { connection, prefix, concurrency: 1, logger },
  );
  return {
    ...defined,
    close() {
      stopping.abort();
      return defined.close();
    },
  };
}

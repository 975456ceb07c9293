import type { Queues } from './create-queues';
import { cadenceSchedulerId } from './job-id';
import { listSchedulers, removeScheduler, upsertScheduler } from './upsert-scheduler';

/** The jobs that run on one scheduler per cadence in use, each tick carrying its cadence. */
export type CadenceJob = { queue: 'source-scans'; job: 'scan-sources' } | { queue: 'engagement-refreshes'; job: 'refresh-engagement' };

export interface SchedulerChanges {
  added: number[];
  removed: number[];
}

// A cadence outside these bounds is a bad row, not a schedule to keep.
const MIN_SECONDS = 1;
const MAX_SECONDS = 86_400;

/**
 * Keeps one job scheduler per wanted cadence (`<job>-every-<n>s`), adding missing ones and removing the ones no
 * cadence wants. Idempotent and safe from every replica: the scheduler ids are deterministic, so replicas racing
 * here still leave one scheduler per cadence, and one removed by a replica with an older view comes back at the
 * next reconciliation.
 */
export async function reconcileCadenceSchedulers(queues: Queues, target: CadenceJob, wantedSeconds: Iterable<number | null>): Promise<SchedulerChanges> {
  const wanted = new Set([...wantedSeconds].filter((value): value is number => value !== null && value >= MIN_SECONDS && value <= MAX_SECONDS));
  // The ids cadenceSchedulerId gives this job's schedulers; another scheduler of the queue is left alone.
  const prefix = `${target.job}-every-`;
  const existing = (await listSchedulers(queues, target.queue)).filter((scheduler) => scheduler.id.startsWith(prefix));
  const existingIds = new Set(existing.map((scheduler) => scheduler.id));
  const changes: SchedulerChanges = { added: [], removed: [] };
  for (const seconds of [...wanted].sort((a, b) => a - b)) {
    const schedulerId = cadenceSchedulerId(target.job, seconds);
    if (existingIds.has(schedulerId)) continue;
    const options = { schedulerId, everyMs: seconds * 1000 };
    // One call per queue, so the compiler checks each payload against its own job's schema.
    if (target.queue === 'source-scans') await upsertScheduler(queues, target.queue, target.job, { intervalSeconds: seconds }, options);
    else await upsertScheduler(queues, target.queue, target.job, { intervalSeconds: seconds }, options);
    changes.added.push(seconds);
  }
  const wantedIds = new Set([...wanted].map((seconds) => cadenceSchedulerId(target.job, seconds)));
  for (const scheduler of existing) {
    if (wantedIds.has(scheduler.id)) continue;
    await removeScheduler(queues, target.queue, scheduler.id);
    changes.removed.push(Number(/(\d+)s$/.exec(scheduler.id)?.[1] ?? 0));
  }
  return changes;
}

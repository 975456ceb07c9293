import type pg from 'pg';
import { cadenceSchedulerId, listSchedulers, removeScheduler, upsertScheduler, type Queues } from '@hashwatch/queues';

const SCHEDULER_PREFIX = 'refresh-engagement-every-';

// Every engagement cadence an account or a plan has (60 s, 180 s, 300 s in the default plans; `plan:set`
// accepts down to 1 s). The plans' keep the defaults ticking before the first account exists.
const WANTED_INTERVALS = `
SELECT engagement_refresh_seconds AS seconds FROM users
UNION
SELECT engagement_refresh_seconds FROM plans`;

export interface SchedulerChanges {
  added: number[];
  removed: number[];
}

/**
 * Keeps one `refresh-engagement` job scheduler per cadence in use (`refresh-engagement-every-<n>s`). A tick of
 * any cadence refreshes every post that is due, whatever its own cadence, so a post is never later than the
 * fastest scheduler; the per-cadence schedulers make sure that scheduler exists for the fastest account.
 * Idempotent and safe from every replica: the ids are deterministic.
 */
export async function reconcileRefreshSchedulers(pool: pg.Pool, queues: Queues): Promise<SchedulerChanges> {
  const { rows } = await pool.query<{ seconds: number | null }>(WANTED_INTERVALS);
  const wanted = new Set(rows.map((row) => row.seconds).filter((value): value is number => value !== null && value >= 1 && value <= 86_400));
  const existing = (await listSchedulers(queues, 'engagement-refreshes')).filter((scheduler) => scheduler.id.startsWith(SCHEDULER_PREFIX));
  const existingIds = new Set(existing.map((scheduler) => scheduler.id));
  const changes: SchedulerChanges = { added: [], removed: [] };
  for (const seconds of [...wanted].sort((a, b) => a - b)) {
    const schedulerId = cadenceSchedulerId('refresh-engagement', seconds);
    if (existingIds.has(schedulerId)) continue;
    await upsertScheduler(queues, 'engagement-refreshes', 'refresh-engagement', { intervalSeconds: seconds }, { schedulerId, everyMs: seconds * 1000 });
    changes.added.push(seconds);
  }
  const wantedIds = new Set([...wanted].map((seconds) => cadenceSchedulerId('refresh-engagement', seconds)));
  for (const scheduler of existing) {
    if (wantedIds.has(scheduler.id)) continue;
    await removeScheduler(queues, 'engagement-refreshes', scheduler.id);
    changes.removed.push(Number(/(\d+)s$/.exec(scheduler.id)?.[1] ?? 0));
  }
  return changes;
}

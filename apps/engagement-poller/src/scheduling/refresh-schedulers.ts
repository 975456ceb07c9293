import type pg from 'pg';
import { reconcileCadenceSchedulers, type Queues, type SchedulerChanges } from '@hashwatch/queues';


// Every engagement cadence an account or a plan has (60 s, 180 s, 300 s in the default plans; `plan:set`
// accepts down to 1 s). The plans' keep the defaults ticking before the first account exists.
const WANTED_INTERVALS = `
SELECT engagement_refresh_seconds AS seconds FROM users
UNION
SELECT engagement_refresh_seconds FROM plans`;

/**
 * Keeps one `refresh-engagement` job scheduler per cadence in use (`refresh-engagement-every-<n>s`). A tick of
 * any cadence refreshes every post that is due, whatever its own cadence, so a post is never later than the
 * fastest scheduler; the per-cadence schedulers make sure that scheduler exists for the fastest account.
 */
export async function reconcileRefreshSchedulers(pool: pg.Pool, queues: Queues): Promise<SchedulerChanges> {
  const { rows } = await pool.query<{ seconds: number | null }>(WANTED_INTERVALS);
  return reconcileCadenceSchedulers(queues, { queue: 'engagement-refreshes', job: 'refresh-engagement' }, rows.map((row) => row.seconds));
}

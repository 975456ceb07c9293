import type pg from 'pg';
import { reconcileCadenceSchedulers, type Queues, type SchedulerChanges } from '@hashwatch/queues';
import { SERVED_USER } from './sources/served-user';

// Every cadence a source needs, plus the fastest of the plans and of the served accounts: that one always
// ticks, so a new track is synced (and its cadence's scheduler created) within one such interval, even when
// no source has that cadence yet.
const WANTED_INTERVALS = `
SELECT interval_seconds FROM source_cursors
UNION
SELECT min(scan_interval_seconds) FROM plans
UNION
SELECT min(u.scan_interval_seconds) FROM users u WHERE ${SERVED_USER}`;

/**
 * Keeps one `scan-sources` job scheduler per cadence in use (`scan-sources-every-<n>s`), adding missing ones
 * and removing ones no source needs (see reconcileCadenceSchedulers).
 */
export async function reconcileScanSchedulers(pool: pg.Pool, queues: Queues): Promise<SchedulerChanges> {
  const { rows } = await pool.query<{ interval_seconds: number | null }>(WANTED_INTERVALS);
  return reconcileCadenceSchedulers(queues, { queue: 'source-scans', job: 'scan-sources' }, rows.map((row) => row.interval_seconds));
}

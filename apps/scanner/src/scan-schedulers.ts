import type pg from 'pg';
import { cadenceSchedulerId, reconcileCadenceSchedulers, upsertScheduler, type Queues, type SchedulerChanges } from '@hashwatch/queues';
import { SERVED_USER } from './sources/sync-sources';

/** The outbox relay's backstop cadence: alerts committed by a cycle that died before relaying wait at most this. */
export const RELAY_EVERY_SECONDS = 5;

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

/** The relay backstop: moves outbox rows a crashed cycle committed but never relayed. */
export async function ensureRelayScheduler(queues: Queues): Promise<void> {
  await upsertScheduler(queues, 'outbox-relay', 'relay-outbox', {}, {
    schedulerId: cadenceSchedulerId('relay-outbox', RELAY_EVERY_SECONDS),
    everyMs: RELAY_EVERY_SECONDS * 1000,
  });
}

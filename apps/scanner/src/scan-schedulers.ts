import type pg from 'pg';
import { cadenceSchedulerId, listSchedulers, removeScheduler, upsertScheduler, type Queues } from '@hashwatch/queues';
import { SERVED_USER } from './sources/sync-sources';

const SCHEDULER_PREFIX = 'scan-sources-every-';
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

export interface SchedulerChanges {
  added: number[];
  removed: number[];
}

/**
 * Keeps one `scan-sources` job scheduler per cadence in use (`scan-sources-every-<n>s`), adding missing ones
 * and removing ones no source needs. Idempotent and safe from every replica: the scheduler ids are
 * deterministic, so replicas racing here still leave one scheduler per cadence, and a scheduler removed by
 * a replica with an older view comes back at the next tick.
 */
export async function reconcileScanSchedulers(pool: pg.Pool, queues: Queues): Promise<SchedulerChanges> {
  const { rows } = await pool.query<{ interval_seconds: number | null }>(WANTED_INTERVALS);
  const wanted = new Set(rows.map((row) => row.interval_seconds).filter((value): value is number => value !== null && value >= 1 && value <= 86_400));
  const existing = (await listSchedulers(queues, 'source-scans')).filter((scheduler) => scheduler.id.startsWith(SCHEDULER_PREFIX));
  const existingIds = new Set(existing.map((scheduler) => scheduler.id));
  const changes: SchedulerChanges = { added: [], removed: [] };

  for (const seconds of [...wanted].sort((a, b) => a - b)) {
    const schedulerId = cadenceSchedulerId('scan-sources', seconds);
    if (existingIds.has(schedulerId)) continue;
    await upsertScheduler(queues, 'source-scans', 'scan-sources', { intervalSeconds: seconds }, { schedulerId, everyMs: seconds * 1000 });
    changes.added.push(seconds);
  }
  const wantedIds = new Set([...wanted].map((seconds) => cadenceSchedulerId('scan-sources', seconds)));
  for (const scheduler of existing) {
    if (wantedIds.has(scheduler.id)) continue;
    await removeScheduler(queues, 'source-scans', scheduler.id);
    changes.removed.push(Number(/(\d+)s$/.exec(scheduler.id)?.[1] ?? 0));
  }
  return changes;
}

/** The relay backstop: moves outbox rows a crashed cycle committed but never relayed. */
export async function ensureRelayScheduler(queues: Queues): Promise<void> {
  await upsertScheduler(queues, 'outbox-relay', 'relay-outbox', {}, {
    schedulerId: cadenceSchedulerId('relay-outbox', RELAY_EVERY_SECONDS),
    everyMs: RELAY_EVERY_SECONDS * 1000,
  });
}

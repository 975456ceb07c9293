import { randomInt } from 'node:crypto';
import type pg from 'pg';
import { COVERAGE_FLOOR, snowflakeAt, STREAM_LIVE, STREAM_SERVED } from '../stream/coverage';
import { SCANNER_LOCK_CLASS } from './lock-keys';
import { parseSourceKey, type Source } from './source';

/** A claimed source with what the cycle needs besides its cursor. */
export interface ClaimedSource extends Source {
  lastError: string | null;
  /** When the row last changed (a failure is recorded with it). */
  updatedAt: Date;
}

export interface SourceClaim {
  /** The advisory lock id the claimed rows carry in claimed_by while the cycle runs. */
  readonly id: number;
  readonly sources: ClaimedSource[];
  /** Frees the rows still claimed and drops the lock. Always call it, also after a failure. */
  release(): Promise<void>;
}

interface ClaimRow {
  source_key: string;
  since_id: string | null;
  not_before: Date;
  interval_seconds: number;
  failures: number;
  last_error: string | null;
  updated_at: Date;
  query_operators: string[];
  with_mentions: boolean;
}

// A tick claims as of its slot on its scheduler's grid ($4; a tick run by hand: now()) and pushes each source one
// interval past that slot, so the same cadence's next tick finds it exactly due, however late either tick is
// picked up; pushing from the moment of the claim made a source claimed a little late miss the next tick and wait
// two intervals. A source is also taken when due within a twentieth of its interval (2 s at most): a tick of
// another cadence, on its own grid, may then scan it up to 5 % early, and the next tick of its own cadence puts it
// back on that grid, so the gaps stay within 10 % of the interval. A claim is live while the session that took it
// holds its advisory lock; the lock dies with the process (even on SIGKILL) so a crashed cycle's sources are free
// again at once, and due again one interval after they were claimed, with their cursors untouched.
// A source the live filtered stream serves (it joined a rule and was searched once since) is not claimed at all;
// once the stream is down it is searched again, from where the stream's coverage reaches for it when that is
// past its own cursor (stream/coverage.ts).
const CLAIM_DUE_SOURCES = `
WITH tick AS (SELECT COALESCE($4::timestamptz, now()) AS at),
stream AS MATERIALIZED (SELECT ${STREAM_LIVE} AS live, ${COVERAGE_FLOOR} AS floor),
live AS MATERIALIZED (
  SELECT l.objid::bigint AS claim_id FROM pg_locks l
   WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = $3::int::oid
     AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
)
UPDATE source_cursors s
   SET claimed_by = $1, next_scan_at = (SELECT at FROM tick) + make_interval(secs => s.interval_seconds), scan_started_at = now()
 WHERE s.source_key IN (
   SELECT c.source_key FROM source_cursors c
    WHERE c.next_scan_at <= (SELECT at FROM tick) + interval '2 seconds'
      AND c.next_scan_at <= (SELECT at FROM tick) + make_interval(secs => LEAST(c.interval_seconds * 0.05, 2))
      AND (c.claimed_by IS NULL OR c.claimed_by::bigint NOT IN (SELECT claim_id FROM live))
      AND NOT (${STREAM_SERVED('c')} AND (SELECT live FROM stream))
    ORDER BY c.next_scan_at, c.source_key
    LIMIT $2
    FOR UPDATE OF c SKIP LOCKED)
RETURNING s.source_key,
       CASE WHEN ${STREAM_SERVED('s')} AND (SELECT floor FROM stream) IS NOT NULL
            THEN GREATEST(COALESCE(s.since_id::numeric, 0), ${snowflakeAt('(SELECT floor FROM stream)')})::text
            ELSE s.since_id END AS since_id,
       s.not_before, s.interval_seconds, s.failures, s.last_error, s.updated_at, s.query_operators, s.with_mentions`;

/**
 * Claims up to `limit` sources due at `at` (default: now) for one scan cycle. Rows are picked with FOR UPDATE SKIP LOCKED (replicas
 * never wait on each other), stamped with this cycle's lock id and pushed one interval ahead, so no other
 * replica scans them until this cycle ends or dies. Returns null when nothing is due. The claim keeps one
 * pooled connection (outside any transaction) until released.
 */
export async function claimDueSources(pool: pg.Pool, limit: number, at?: Date): Promise<SourceClaim | null> {
  const client = await pool.connect();
  let id = 0;
  try {
    for (let attempt = 0; attempt < 5 && id === 0; attempt += 1) {
      const candidate = randomInt(1, 2 ** 31 - 1);
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [SCANNER_LOCK_CLASS, candidate]);
      if (rows[0]?.ok) id = candidate;
    }
    if (id === 0) throw new Error('no free claim id after 5 tries');
    const { rows } = await client.query<ClaimRow>(CLAIM_DUE_SOURCES, [id, limit, SCANNER_LOCK_CLASS, at ?? null]);
    const sources = rows.flatMap((row): ClaimedSource[] => {
      const parsed = parseSourceKey(row.source_key);
      if (!parsed) return [];
      return [{
        key: row.source_key,
        ...parsed,
        sinceId: row.since_id,
        notBefore: row.not_before,
        intervalSeconds: row.interval_seconds,
        failures: row.failures,
        operators: row.query_operators,
        mentions: row.with_mentions,
        lastError: row.last_error,
        updatedAt: row.updated_at,
      }];
    });
    if (sources.length === 0) {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [SCANNER_LOCK_CLASS, id]);
      client.release();
      return null;
    }
    let released = false;
    return {
      id,
      sources,
      async release() {
        if (released) return;
        released = true;
        try {
          await client.query('UPDATE source_cursors SET claimed_by = NULL WHERE claimed_by = $1', [id]);
          await client.query('SELECT pg_advisory_unlock($1, $2)', [SCANNER_LOCK_CLASS, id]);
          client.release();
        } catch (error) {
          // Destroying the connection drops the lock too; rows still naming it count as free.
          client.release(error as Error);
        }
      },
    };
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
}

import type pg from 'pg';
import { SOURCE_LOCK_CLASS } from '@hashwatch/accounts';
import { transaction } from '@hashwatch/db';
import { SCANNER_LOCK_CLASS } from './lock-keys';
import { commonOperatorsSql } from './query-operators';
import { SERVED_USER } from './served-user';

// The sources every served account needs: one per hashtag_norm and per username_norm, at the fastest cadence
// among the accounts tracking it (an account over its share of the search budget at its stretched one:
// fair-shares.ts), not reporting posts older than its oldest track, narrowed by the operators all its trackers'
// filters ask for (query-operators.ts), and for a watched account with its mentions when any tracker asks for them.
const WANTED = `
wanted AS (
  SELECT 'tag:' || t.hashtag_norm AS source_key, min(u.scan_interval_seconds * COALESCE(sh.stretch, 1)) AS interval_seconds, min(t.created_at) AS not_before,
         ${commonOperatorsSql('t.filters')} AS query_operators, false AS with_mentions
    FROM tracks t JOIN users u ON u.id = t.user_id LEFT JOIN scan_shares sh ON sh.user_id = u.id
   WHERE t.status = 'active' AND ${SERVED_USER}
   GROUP BY t.hashtag_norm
  UNION ALL
  SELECT 'user:' || a.username_norm, min(u.scan_interval_seconds * COALESCE(sh.stretch, 1)), min(a.created_at), ${commonOperatorsSql('a.filters')},
         bool_or(a.include_mentions)
    FROM account_tracks a JOIN users u ON u.id = a.user_id LEFT JOIN scan_shares sh ON sh.user_id = u.id
   WHERE a.status = 'active' AND ${SERVED_USER}
   GROUP BY a.username_norm
)`;

// Removes the cursors no served account needs (cursor and all), and answers the sources whose cursor is missing or
// has another cadence: the only ones to write, so a steady state locks nothing and costs this one statement.
const PLAN_SYNC = `
WITH ${WANTED}, removed AS (
  DELETE FROM source_cursors s WHERE NOT EXISTS (SELECT 1 FROM wanted w WHERE w.source_key = s.source_key)
  RETURNING 1
)
SELECT (SELECT count(*) FROM removed)::int AS removed,
       ARRAY(SELECT w.source_key FROM wanted w LEFT JOIN source_cursors c ON c.source_key = w.source_key
              WHERE c.source_key IS NULL OR c.interval_seconds <> w.interval_seconds OR c.query_operators <> w.query_operators
                 OR c.with_mentions <> w.with_mentions
              ORDER BY 1) AS changed`;

// The per-source locks (@hashwatch/accounts SOURCE_LOCK_CLASS) of `$1` that are free, taken until commit; a source an
// erasure holds is left to the next sync.
const LOCK_FREE_SOURCES = `SELECT k FROM unnest($1::text[]) AS k WHERE pg_try_advisory_xact_lock(${SOURCE_LOCK_CLASS}, hashtext(k))`;

// Writes the cursors of `$1` (locked above) as the tracks stand now: read again in this statement, after the locks,
// so a track an erasure deleted before its lock was taken here is seen gone. A faster cadence pulls next_scan_at in;
// new operators apply from the next claim.
const WRITE_SOURCES = `
WITH ${WANTED}, upserted AS (
  INSERT INTO source_cursors AS s (source_key, not_before, interval_seconds, next_scan_at, query_operators, with_mentions)
  SELECT w.source_key, w.not_before, w.interval_seconds, now(), w.query_operators, w.with_mentions
    FROM wanted w LEFT JOIN source_cursors c ON c.source_key = w.source_key
   WHERE w.source_key = ANY($1::text[])
     AND (c.source_key IS NULL OR c.interval_seconds <> w.interval_seconds OR c.query_operators <> w.query_operators
          OR c.with_mentions <> w.with_mentions)
   ORDER BY w.source_key
  ON CONFLICT (source_key) DO UPDATE
     SET interval_seconds = EXCLUDED.interval_seconds,
         query_operators = EXCLUDED.query_operators,
         with_mentions = EXCLUDED.with_mentions,
         next_scan_at = LEAST(s.next_scan_at, COALESCE(s.last_scan_at, now()) + make_interval(secs => EXCLUDED.interval_seconds)),
         updated_at = now()
  RETURNING 1
)
SELECT (SELECT count(*) FROM upserted)::int AS upserted`;

export interface SyncResult {
  /** False when another replica was syncing at that moment (its result serves this one too). */
  ran: boolean;
  upserted: number;
  removed: number;
}

/**
 * Brings source_cursors in line with the tracks of served accounts: a source appears when its first served
 * track does, changes cadence with its fastest account, and is removed (cursor and all) when no served
 * account tracks it any more, so a later track starts from its own creation instead of an old cursor.
 * One replica at a time: the others skip rather than queue behind it. A cursor is written only under its source's
 * lock, which an erasure of the source holds until it commits (@hashwatch/accounts eraseSource, eraseAccount); a
 * source being erased is skipped, never waited for, so deletions never hold the sync up.
 */
export async function syncSources(pool: pg.Pool): Promise<SyncResult> {
  return transaction(pool, async (client) => {
    const { rows: lock } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1, 0) AS ok', [SCANNER_LOCK_CLASS]);
    if (!lock[0]?.ok) return { ran: false, upserted: 0, removed: 0 };
    const { rows: plan } = await client.query<{ removed: number; changed: string[] }>(PLAN_SYNC);
    const removed = plan[0]?.removed ?? 0;
    const changed = plan[0]?.changed ?? [];
    if (changed.length === 0) return { ran: true, upserted: 0, removed };
    const { rows: free } = await client.query<{ k: string }>(LOCK_FREE_SOURCES, [changed]);
    if (free.length === 0) return { ran: true, upserted: 0, removed };
    const { rows } = await client.query<{ upserted: number }>(WRITE_SOURCES, [free.map((row) => row.k)]);
    return { ran: true, upserted: rows[0]?.upserted ?? 0, removed };
  });
}

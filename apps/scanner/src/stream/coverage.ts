import type pg from 'pg';
import { transaction } from '@hashwatch/db';

/**
 * The stream's timing, kept in its state row by the holder so every replica's SQL reads the same figures.
 * `marginSeconds`: how far around a disconnection the back-fill searches, and how long after joining the stream a
 * source's own search must have run before the stream alone serves it. X delivers 99 % of posts within 6–7 s of
 * publication (PLATFORMS.md d); 30 s also covers clock skew between X, PostgreSQL and the replicas, and search's
 * index lag. `staleSeconds`: a coverage older than this is a stream that is down, and its sources are searched.
 */
export interface StreamTiming {
  marginSeconds: number;
  staleSeconds: number;
}

export const DEFAULT_STREAM_TIMING: StreamTiming = { marginSeconds: 30, staleSeconds: 60 };

/** How often the replica holding the stream records its coverage. */
export const HEARTBEAT_MS = 5_000;

const MARGIN = `(SELECT make_interval(secs => st.margin_seconds) FROM stream_state st WHERE st.id = 1)`;

/** SQL: the stream is live (its holder recorded coverage within stale_seconds, by PostgreSQL's clock). */
export const STREAM_LIVE = `EXISTS (SELECT 1 FROM stream_state st WHERE st.id = 1 AND st.covered_until > now() - make_interval(secs => st.stale_seconds))`;

/**
 * SQL: the instant before which every post of a streamed source is stored, for a source whose own search ran after
 * it joined the stream: the stream's coverage, held back by the oldest window still to back-fill, less the margin.
 * NULL before the stream ever covered anything.
 */
export const COVERAGE_FLOOR = `(SELECT LEAST(st.covered_until, (SELECT min(g.starts_at) FROM stream_gaps g WHERE g.filled_at IS NULL))
          - make_interval(secs => st.margin_seconds) FROM stream_state st WHERE st.id = 1)`;

/**
 * SQL: a source (alias) that joined the stream and whose last completed scan started a margin after that, so the
 * stream alone serves it. Never NULL: a source never scanned, or whose scan is still running, is not served. A
 * handle whose mentions a tracker asks for is never served by the stream (its rules carry no `@handle`): from the
 * moment the sync says so it is searched again, from its own cursor, not from what the stream covered.
 */
export const STREAM_SERVED = (alias: string) =>
  `COALESCE(${alias}.streamed_since IS NOT NULL AND NOT ${alias}.with_mentions
     AND ${alias}.scan_started_at >= ${alias}.streamed_since + ${MARGIN}
     AND ${alias}.last_scan_at >= ${alias}.scan_started_at, false)`;

/** SQL: the smallest X post id created at or after a timestamptz expression (snowflake: ms since X's epoch, above 22 bits). */
export const snowflakeAt = (time: string) => `((((extract(epoch FROM ${time}) * 1000)::bigint - 1288834974657) << 22)::numeric)`;

/**
 * Records a new connection: the window since the stream last covered anything, to the connection plus the margin,
 * becomes a gap to back-fill (none on the very first connection: no source relied on the stream before). The
 * coverage itself stays where it was until the first heartbeat, so the gap is on record before it can move.
 */
export async function recordConnection(pool: pg.Pool, timing: StreamTiming = DEFAULT_STREAM_TIMING): Promise<{ gapId: string | null }> {
  return transaction(pool, async (client) => {
    await client.query('INSERT INTO stream_state (id) VALUES (1) ON CONFLICT (id) DO NOTHING');
    const { rows: state } = await client.query<{ covered_until: Date | null }>('SELECT covered_until FROM stream_state WHERE id = 1 FOR UPDATE');
    let gapId: string | null = null;
    if (state[0]?.covered_until) {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO stream_gaps (starts_at, ends_at)
         VALUES ($1::timestamptz - make_interval(secs => $2), now() + make_interval(secs => $2))
         RETURNING id`,
        [state[0].covered_until, timing.marginSeconds],
      );
      gapId = rows[0]?.id ?? null;
    }
    await client.query('UPDATE stream_state SET connected_at = now(), margin_seconds = $1, stale_seconds = $2, updated_at = now() WHERE id = 1', [
      timing.marginSeconds,
      timing.staleSeconds,
    ]);
    return { gapId };
  });
}

/**
 * Moves the coverage to `lagMs` before PostgreSQL's now: every post received before then is stored. Never
 * backwards. Answers false when the row was not there to move (recordConnection makes it).
 */
export async function recordCoverage(pool: pg.Pool, lagMs: number): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE stream_state
        SET covered_until = GREATEST(covered_until, now() - make_interval(secs => $1::float8 / 1000)), updated_at = now()
      WHERE id = 1`,
    [Math.max(0, lagMs)],
  );
  return (rowCount ?? 0) > 0;
}

/** The stream's coverage as recorded, and whether every other replica counts it live. */
export async function readCoverage(db: Pick<pg.Pool, 'query'>): Promise<{ coveredUntil: Date | null; live: boolean; unfilledGaps: number }> {
  const { rows } = await db.query<{ covered_until: Date | null; live: boolean; unfilled: number }>(
    `SELECT (SELECT covered_until FROM stream_state WHERE id = 1) AS covered_until, ${STREAM_LIVE} AS live,
            (SELECT count(*) FROM stream_gaps WHERE filled_at IS NULL)::int AS unfilled`,
  );
  const row = rows[0];
  return { coveredUntil: row?.covered_until ?? null, live: row?.live ?? false, unfilledGaps: row?.unfilled ?? 0 };
}

/** Sources that joined the stream now (their rule is in place on a live connection). */
export async function markStreamed(pool: pg.Pool, keys: readonly string[]): Promise<number> {
  if (keys.length === 0) return 0;
  const { rowCount } = await pool.query(
    `UPDATE source_cursors SET streamed_since = now(), updated_at = now()
      WHERE source_key = ANY($1::text[]) AND streamed_since IS NULL`,
    [[...keys].sort()],
  );
  return rowCount ?? 0;
}

/**
 * Sources no rule covers any more (since `ruleGoneAt` at the latest) go back to search. One the stream alone
 * served gets its cursor moved up to what the stream covered for it: everything published before the coverage
 * floor, and before its rule went, is stored; the search takes it from there instead of re-reading all the stream
 * delivered since its last search.
 */
export async function unmarkStreamed(pool: pg.Pool, keys: readonly string[], ruleGoneAt: Date): Promise<number> {
  if (keys.length === 0) return 0;
  const floor = `LEAST(${COVERAGE_FLOOR}, $2::timestamptz - ${MARGIN})`;
  const { rowCount } = await pool.query(
    `UPDATE source_cursors s
        SET since_id = CASE
              WHEN ${STREAM_SERVED('s')} AND ${floor} IS NOT NULL
              THEN GREATEST(COALESCE(s.since_id::numeric, 0), ${snowflakeAt(floor)})::text
              ELSE s.since_id END,
            streamed_since = NULL, updated_at = now()
      WHERE s.source_key = ANY($1::text[]) AND s.streamed_since IS NOT NULL`,
    [[...keys].sort(), ruleGoneAt],
  );
  return rowCount ?? 0;
}

/** Keys of the sources now marked streamed. */
export async function streamedKeys(db: Pick<pg.Pool, 'query'>): Promise<string[]> {
  const { rows } = await db.query<{ source_key: string }>('SELECT source_key FROM source_cursors WHERE streamed_since IS NOT NULL ORDER BY source_key');
  return rows.map((row) => row.source_key);
}

/** Records a window no rule covered for some sources (rules replaced at the rule cap): back-filled like a disconnection. */
export async function recordGap(pool: pg.Pool, from: Date): Promise<void> {
  await pool.query(
    `INSERT INTO stream_gaps (starts_at, ends_at)
     SELECT $1::timestamptz - m.margin, now() + m.margin
       FROM (SELECT COALESCE(${MARGIN}, interval '30 seconds') AS margin) m`,
    [from],
  );
}

/**
 * Scan health of the tracks the live stream serves: `last_scanned_at` moves to now (at most once a `everySeconds`,
 * so the writes stay below what searching the same sources would write) and a stale `scan_error` clears, as a
 * completed search would; `last_post_at` moves with each stored batch (recordLastPosts).
 */
export async function touchStreamedTracks(pool: pg.Pool, everySeconds: number): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `WITH t AS (
       UPDATE tracks t SET last_scanned_at = now(), scan_error = NULL
         FROM source_cursors s
        WHERE ${STREAM_SERVED('s')} AND s.source_key = 'tag:' || t.hashtag_norm AND t.status = 'active'
          AND (t.last_scanned_at IS NULL OR t.last_scanned_at < now() - make_interval(secs => $1))
          AND ${STREAM_LIVE}
       RETURNING 1
     ), a AS (
       UPDATE account_tracks a SET last_scanned_at = now(), scan_error = NULL
         FROM source_cursors s
        WHERE ${STREAM_SERVED('s')} AND s.source_key = 'user:' || a.username_norm AND a.status = 'active'
          AND (a.last_scanned_at IS NULL OR a.last_scanned_at < now() - make_interval(secs => $1))
          AND ${STREAM_LIVE}
       RETURNING 1
     )
     SELECT ((SELECT count(*) FROM t) + (SELECT count(*) FROM a))::int AS n`,
    [everySeconds],
  );
  return rows[0]?.n ?? 0;
}

/** `last_post_at` of the tracks and account tracks a stored batch matched (per subscription id), never backwards. */
export async function recordLastPosts(pool: pg.Pool, lastPostAt: ReadonlyMap<string, Date>): Promise<void> {
  if (lastPostAt.size === 0) return;
  const entries = [...lastPostAt].sort(([a], [b]) => (a < b ? -1 : 1));
  const ids = entries.map(([id]) => id);
  const times = entries.map(([, at]) => at.toISOString());
  await pool.query(
    `WITH v AS (SELECT * FROM unnest($1::text[], $2::timestamptz[]) AS v(id, at)),
     t AS (UPDATE tracks t SET last_post_at = GREATEST(t.last_post_at, v.at) FROM v WHERE t.id = v.id RETURNING 1)
     UPDATE account_tracks a SET last_post_at = GREATEST(a.last_post_at, v.at) FROM v WHERE a.id = v.id`,
    [ids, times],
  );
}

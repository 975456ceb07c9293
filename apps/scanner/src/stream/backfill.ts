import type pg from 'pg';
import { XRateLimitedError, XUnavailableError, type XClient } from '@hashwatch/x-api';
import { packSources } from '../packing/pack-sources';
import type { ScanContext, TickSummary } from '../scan-pack';
import { SOURCE_COLUMNS, storePosts, toSources, type SourceRow } from './stream-store';

/** First key of the advisory lock a replica holds on a gap while back-filling it (second key: the gap's id). */
export const STREAM_GAP_LOCK_CLASS = 0x5ca9;

// X refuses an end_time closer than 10 s to the request (PLATFORMS.md a); a second more for end_time's rounding.
const END_TIME_MARGIN_MS = 11_000;
// Recent search reaches 7 days back; a minute less for clock skew.
const SEARCH_WINDOW_MS = 7 * 24 * 3600 * 1000 - 60_000;

interface GapRow {
  id: string;
  starts_at: Date;
  ends_at: Date;
}


// The sources that were streamed at some point of the window: those streamed since before its end. A source
// that left the stream meanwhile had its cursor set below the oldest unfilled gap (unmarkStreamed), so its own
// search covers the window.
const GAP_SOURCES = `
SELECT ${SOURCE_COLUMNS} FROM source_cursors
 WHERE streamed_since IS NOT NULL AND streamed_since < $1
 ORDER BY source_key`;

export interface BackfillResult {
  /** Gaps filled by this call. */
  filled: number;
  /** Search requests X answered. */
  requests: number;
}

/** Runs every page of one query over [start, end), storing each page as it arrives. */
async function searchWindow(ctx: ScanContext, query: string, window: { start: Date; end: Date }, summary: TickSummary): Promise<number> {
  let requests = 0;
  let nextToken: string | undefined;
  do {
    const page = await searchWithRetries(ctx, { query, startTime: window.start, endTime: window.end, maxResults: 100, ...(nextToken ? { nextToken } : {}) });
    requests += 1;
    summary.requests += 1;
    const postsRead = page.posts.length + page.includedPosts.length;
    ctx.metrics.postsRead.inc(postsRead);
    await storePosts(ctx, page.posts, { postsRead, requests: 1 }, summary);
    nextToken = page.meta.nextToken ?? undefined;
  } while (nextToken);
  return requests;
}

async function searchWithRetries(ctx: ScanContext, params: Parameters<XClient['searchRecent']>[0]) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await ctx.x.searchRecent(params);
    } catch (error) {
      const delay = ctx.fetchOptions.retryDelaysMs[attempt];
      if (!(error instanceof XUnavailableError) || delay === undefined) throw error;
      await ctx.fetchOptions.sleep(delay);
    }
  }
}

/**
 * Back-fills the windows the stream did not cover, oldest first, while X lets it: every streamed source's posts of
 * the window are searched (start_time/end_time, packed like a scan) and stored like streamed posts, so a post the
 * stream delivered as well is stored once. A window is taken by one replica at a time (an advisory lock that dies
 * with its session) and marked filled once every page of every pack is stored; a failure leaves it for the next
 * tick, which searches it again from the start (what was stored stays, and is not stored twice). A window still
 * ending within X's 10 s end_time margin waits.
 */
export async function backfillGaps(ctx: ScanContext, maxQueryLength: number, summary: TickSummary, maxGaps = 5): Promise<BackfillResult> {
  const result: BackfillResult = { filled: 0, requests: 0 };
  const now = ctx.now();
  const { rows: gaps } = await ctx.pool.query<GapRow>(
    `SELECT id, starts_at, ends_at FROM stream_gaps
      WHERE filled_at IS NULL AND ends_at <= $1::timestamptz ORDER BY starts_at, id LIMIT 50`,
    [new Date(now - END_TIME_MARGIN_MS)],
  );
  for (const gap of gaps) {
    if (result.filled >= maxGaps) break;
    const client = await ctx.pool.connect();
    let locked = false;
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, ($2::bigint % 2147483647)::int) AS ok', [STREAM_GAP_LOCK_CLASS, gap.id]);
      locked = rows[0]?.ok === true;
      if (!locked) continue;
      // Filled by another replica between the list and the lock.
      const { rows: still } = await client.query('SELECT 1 FROM stream_gaps WHERE id = $1 AND filled_at IS NULL', [gap.id]);
      if (still.length === 0) continue;
      const outcome = await fillGap(ctx, client, gap, maxQueryLength, summary);
      result.requests += outcome.requests;
      if (outcome.filled) result.filled += 1;
      if (outcome.stop) break;
    } finally {
      if (locked) await client.query('SELECT pg_advisory_unlock($1, ($2::bigint % 2147483647)::int)', [STREAM_GAP_LOCK_CLASS, gap.id]).catch(() => undefined);
      client.release();
    }
  }
  return result;
}

async function fillGap(ctx: ScanContext, client: pg.PoolClient, gap: GapRow, maxQueryLength: number, summary: TickSummary): Promise<{ filled: boolean; requests: number; stop: boolean }> {
  const log = ctx.logger.child({ gap: gap.id });
  const windowFloor = ctx.now() - SEARCH_WINDOW_MS;
  if (gap.ends_at.getTime() <= windowFloor) {
    // Past recent search's reach: nothing can fetch it any more. Said loudly, and never retried.
    log.error('stream gap beyond the search window', { startsAt: gap.starts_at, endsAt: gap.ends_at });
    await client.query(`UPDATE stream_gaps SET filled_at = now(), last_error = 'older than the 7-day search window' WHERE id = $1`, [gap.id]);
    return { filled: true, requests: 0, stop: false };
  }
  const window = { start: new Date(Math.max(gap.starts_at.getTime(), windowFloor)), end: gap.ends_at };
  const { rows } = await client.query<SourceRow>(GAP_SOURCES, [gap.ends_at]);
  const sources = toSources(rows);
  // One query serves every cadence here: the window is the same for all.
  const { packs } = packSources(sources.map((source) => ({ ...source, intervalSeconds: 0 })), maxQueryLength);
  let requests = 0;
  try {
    for (const pack of packs) requests += await searchWindow(ctx, pack.query, window, summary);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log.warn('stream gap back-fill failed', { error, packs: packs.length });
    await client.query('UPDATE stream_gaps SET attempts = attempts + 1, last_error = $2 WHERE id = $1', [gap.id, reason.slice(0, 500)]);
    return { filled: false, requests, stop: error instanceof XRateLimitedError };
  }
  await client.query('UPDATE stream_gaps SET filled_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = $1', [gap.id]);
  log.info('stream gap back-filled', { startsAt: gap.starts_at, endsAt: gap.ends_at, sources: sources.length, packs: packs.length, requests });
  return { filled: true, requests, stop: false };
}

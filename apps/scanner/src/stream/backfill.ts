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
 * with its session). Each pack's sources are recorded done once all its pages are stored, so a back-fill that stops
 * (a rate limit, a crash, this tick's share used up) resumes after them; the window is filled once every source is
 * done. One call searches at most `maxPacks` packs, so back-fill never holds a scan tick for long. A window still
 * ending within X's 10 s end_time margin waits.
 */
export async function backfillGaps(ctx: ScanContext, maxQueryLength: number, summary: TickSummary, maxPacks = 20): Promise<BackfillResult> {
  const result: BackfillResult = { filled: 0, requests: 0 };
  const { rows: gaps } = await ctx.pool.query<GapRow>(
    `SELECT id, starts_at, ends_at FROM stream_gaps
      WHERE filled_at IS NULL AND ends_at <= $1::timestamptz ORDER BY starts_at, id LIMIT 50`,
    [new Date(ctx.now() - END_TIME_MARGIN_MS)],
  );
  let packsLeft = maxPacks;
  for (const gap of gaps) {
    if (packsLeft <= 0) break;
    const client = await ctx.sessionPool.connect();
    let locked = false;
    let releaseError: Error | undefined;
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, ($2::bigint % 2147483647)::int) AS ok', [STREAM_GAP_LOCK_CLASS, gap.id]);
      locked = rows[0]?.ok === true;
      if (!locked) continue;
      const outcome = await fillGap(ctx, client, gap, maxQueryLength, summary, packsLeft);
      result.requests += outcome.requests;
      packsLeft -= outcome.packs;
      if (outcome.filled) result.filled += 1;
      if (outcome.stop) break;
    } finally {
      if (locked) {
        await client.query('SELECT pg_advisory_unlock($1, ($2::bigint % 2147483647)::int)', [STREAM_GAP_LOCK_CLASS, gap.id]).catch((error: unknown) => {
          // A session that may still hold the lock must not go back to the pool.
          releaseError = error as Error;
        });
      }
      client.release(releaseError);
    }
  }
  return result;
}

interface FillOutcome {
  filled: boolean;
  requests: number;
  packs: number;
  stop: boolean;
}

async function fillGap(ctx: ScanContext, client: pg.PoolClient, gap: GapRow, maxQueryLength: number, summary: TickSummary, maxPacks: number): Promise<FillOutcome> {
  const log = ctx.logger.child({ gap: gap.id });
  const windowFloor = ctx.now() - SEARCH_WINDOW_MS;
  if (gap.ends_at.getTime() <= windowFloor) {
    // Past recent search's reach: nothing can fetch it any more. Said loudly, and never retried.
    log.error('stream gap beyond the search window', { startsAt: gap.starts_at, endsAt: gap.ends_at });
    await client.query(`UPDATE stream_gaps SET filled_at = now(), last_error = 'older than the 7-day search window' WHERE id = $1`, [gap.id]);
    return { filled: true, requests: 0, packs: 0, stop: false };
  }
  if (gap.starts_at.getTime() < windowFloor) log.error('stream gap partly beyond the search window: its oldest part cannot be searched', { startsAt: gap.starts_at, searchableFrom: new Date(windowFloor) });
  const window = { start: new Date(Math.max(gap.starts_at.getTime(), windowFloor)), end: gap.ends_at };
  // Still unfilled (another replica may have filled it between the list and the lock), with what is done.
  const { rows: state } = await client.query<{ done_keys: string[] }>('SELECT done_keys FROM stream_gaps WHERE id = $1 AND filled_at IS NULL', [gap.id]);
  if (!state[0]) return { filled: false, requests: 0, packs: 0, stop: false };
  const done = new Set(state[0].done_keys);
  const { rows } = await client.query<SourceRow>(GAP_SOURCES, [gap.ends_at]);
  const sources = toSources(rows).filter((source) => !done.has(source.key));
  // One query serves every cadence here: the window is the same for all.
  const { packs } = packSources(sources.map((source) => ({ ...source, intervalSeconds: 0 })), maxQueryLength);
  let requests = 0;
  let searched = 0;
  for (const pack of packs.slice(0, maxPacks)) {
    try {
      requests += await searchWindow(ctx, pack.query, window, summary);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      log.warn('stream gap back-fill stopped', { error, packsLeft: packs.length - searched });
      await client.query('UPDATE stream_gaps SET attempts = attempts + 1, last_error = $2 WHERE id = $1', [gap.id, reason.slice(0, 500)]);
      return { filled: false, requests, packs: searched + 1, stop: error instanceof XRateLimitedError };
    }
    searched += 1;
    await client.query('UPDATE stream_gaps SET done_keys = done_keys || $2::text[] WHERE id = $1', [gap.id, pack.sources.map((source) => source.key)]);
  }
  if (searched < packs.length) return { filled: false, requests, packs: searched, stop: true };
  await client.query('UPDATE stream_gaps SET filled_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = $1', [gap.id]);
  log.info('stream gap back-filled', { startsAt: gap.starts_at, endsAt: gap.ends_at, sources: done.size + sources.length, requests });
  return { filled: true, requests, packs: searched, stop: false };
}

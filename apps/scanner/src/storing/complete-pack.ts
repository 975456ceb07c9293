import type pg from 'pg';
import type { Subscription } from '../matching/match-posts';
import { currentMentionsSql, currentOperatorsSql } from '../sources/query-operators';
import type { Source } from '../sources/source';
import { column } from './columns';

// The completing batch's bookkeeping in one statement: every source's cursor moves to the first page's
// newest_id (never backwards) and is released, and the served tracks are marked scanned. A source whose query was
// narrowed by operators ($8, space-separated, aligned with $1) that some tracker no longer asks for (a tracker
// added or a filter widened since the sync), or searched without the mentions ($9) a tracker now asks for, keeps its
// cursor: the next scan reads the same span again as the trackers now want it, and what was stored already is not
// stored twice.
const COMPLETE_PACK = `
WITH narrowed AS (
  SELECT k.key FROM unnest($1::text[], $8::text[], $9::boolean[]) AS k(key, operators, mentions)
   WHERE (k.operators <> '' AND NOT (COALESCE(${currentOperatorsSql('k.key')}, '{}') @> string_to_array(k.operators, ' ')))
      OR (NOT k.mentions AND ${currentMentionsSql('k.key')})
), cursors AS (
  UPDATE source_cursors s
     SET since_id = CASE WHEN $2::text IS NOT NULL AND (s.since_id IS NULL OR $2::numeric > s.since_id::numeric)
                          AND s.source_key NOT IN (SELECT key FROM narrowed) THEN $2::text ELSE s.since_id END,
         last_scan_at = now(), last_error = NULL, failures = 0, updated_at = now(),
         claimed_by = CASE WHEN s.claimed_by = $3 THEN NULL ELSE s.claimed_by END
   WHERE s.source_key = ANY($1::text[])
  RETURNING 1
), t AS (
  UPDATE tracks t SET last_scanned_at = now(), scan_error = NULL, last_post_at = GREATEST(t.last_post_at, v.last_post_at)
    FROM unnest($4::text[], $5::timestamptz[]) AS v(id, last_post_at)
   WHERE t.id = v.id
  RETURNING 1
), a AS (
  UPDATE account_tracks a SET last_scanned_at = now(), scan_error = NULL, last_post_at = GREATEST(a.last_post_at, v.last_post_at)
    FROM unnest($6::text[], $7::timestamptz[]) AS v(id, last_post_at)
   WHERE a.id = v.id
  RETURNING 1
)
SELECT (SELECT count(*) FROM cursors) AS cursors, (SELECT count(*) FROM t) + (SELECT count(*) FROM a) AS tracks`;

/** Advances the pack's cursors and marks its served tracks and account tracks scanned, in one statement. */
export async function completePack(client: pg.PoolClient, input: { sources: readonly Source[]; claimId: number }, newestId: string | null, subscriptions: readonly Subscription[], lastPostAt: ReadonlyMap<string, Date>): Promise<void> {
  const sources = [...input.sources].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const trackRows = subscriptions.filter((s) => s.kind === 'hashtag').sort((a, b) => (a.id < b.id ? -1 : 1));
  const accountRows = subscriptions.filter((s) => s.kind === 'account').sort((a, b) => (a.id < b.id ? -1 : 1));
  await client.query(COMPLETE_PACK, [
    column(sources, (source) => source.key),
    newestId,
    input.claimId,
    column(trackRows, (s) => s.id),
    column(trackRows, (s) => lastPostAt.get(s.id)?.toISOString() ?? null),
    column(accountRows, (s) => s.id),
    column(accountRows, (s) => lastPostAt.get(s.id)?.toISOString() ?? null),
    column(sources, (source) => (source.operators ?? []).join(' ')),
    column(sources, (source) => source.mentions === true),
  ]);
}


import type pg from 'pg';
import { DEFAULT_NOTICE_COOLDOWN_SECONDS, deliverNoticeEntries, noticeSql } from '@hashwatch/notices';
import { writeOutbox } from '@hashwatch/outbox';
import { DEFAULT_SILENCE_PARAMS, emptySilenceState, observePosts, silenceVerdict, SILENCE_BUCKETS, type SilenceParams, type SilenceState } from '../silence/silence-detector';
import { parseSourceKey, type Source } from '../sources/source';
import { SERVED_USER } from '../sources/served-user';

/** The two notices about a source (CONTRACT 8). */
export type SourceNoticeKind = 'source_failing' | 'source_silent';

export interface SourceNoticeSettings {
  /** SOURCE_FAILING_CYCLES: failed scans in a row (rate limits aside) that raise `source_failing`. Default 3. */
  failingCycles: number;
  silence: SilenceParams;
  /** After a notice resolves, the same condition opens none for this long (as raiseNotice of @hashwatch/notices). */
  cooldownSeconds: number;
}

export const DEFAULT_SOURCE_FAILING_CYCLES = 3;

export const DEFAULT_SOURCE_NOTICE_SETTINGS: Readonly<SourceNoticeSettings> = Object.freeze({
  failingCycles: DEFAULT_SOURCE_FAILING_CYCLES,
  silence: DEFAULT_SILENCE_PARAMS,
  cooldownSeconds: DEFAULT_NOTICE_COOLDOWN_SECONDS,
});

/** `#btc` / `@alice`: the source as the API spells it (a feed item's `sources`), from `tag:btc` / `user:alice`. */
export function sourceLabelOf(key: string): string {
  const parsed = parseSourceKey(key);
  if (!parsed) return key;
  return parsed.kind === 'tag' ? `#${parsed.name}` : `@${parsed.name}`;
}

// The set-based form of @hashwatch/notices' raiseNotice, for every served account tracking each source at once:
// one open notice per (account, kind, source) (the partial unique index; a replica raising the same at the same
// moment inserts nothing), none while the same condition resolved less than the cooldown ago (noticeSql).
const RAISE = `
WITH wanted AS (
  SELECT * FROM unnest($1::text[], $2::text[]) AS w(label, message)
), accounts AS (
  SELECT DISTINCT t.user_id, '#' || t.hashtag_norm AS label
    FROM tracks t JOIN users u ON u.id = t.user_id
   WHERE t.hashtag_norm = ANY($3::text[]) AND t.status = 'active' AND ${SERVED_USER}
  UNION
  SELECT DISTINCT a.user_id, '@' || a.username_norm
    FROM account_tracks a JOIN users u ON u.id = a.user_id
   WHERE a.username_norm = ANY($4::text[]) AND a.status = 'active' AND ${SERVED_USER}
)
INSERT INTO notices (id, user_id, kind, subject, source, message, opened_at)
SELECT ${noticeSql.newId}, a.user_id, $5, a.label, a.label, w.message, $6
  FROM accounts a JOIN wanted w ON w.label = a.label
 WHERE NOT ${noticeSql.coolingDown('a.user_id', '$5', 'a.label', '$6::timestamptz', '$7')}
 ORDER BY a.user_id, a.label
ON CONFLICT (user_id, kind, subject) WHERE resolved_at IS NULL DO NOTHING
RETURNING id`;

const RESOLVE = `
UPDATE notices SET resolved_at = $3
 WHERE kind = $1 AND subject = ANY($2::text[]) AND resolved_at IS NULL
RETURNING id`;

/**
 * Opens `kind` for every served account tracking each source (`message` per source key) that has none open, in
 * the caller's transaction, with the jobs that send them. Returns the ids opened.
 */
export async function raiseSourceNotices(client: pg.PoolClient, kind: SourceNoticeKind, messages: ReadonlyMap<string, string>, now: Date, cooldownSeconds: number): Promise<string[]> {
  if (messages.size === 0) return [];
  const keys = [...messages.keys()].sort();
  const parsed = keys.map((key) => parseSourceKey(key));
  const tags = parsed.filter((p) => p?.kind === 'tag').map((p) => p?.name as string);
  const users = parsed.filter((p) => p?.kind === 'user').map((p) => p?.name as string);
  const { rows } = await client.query<{ id: string }>(RAISE, [
    keys.map(sourceLabelOf),
    keys.map((key) => messages.get(key) as string),
    tags,
    users,
    kind,
    now,
    cooldownSeconds,
  ]);
  const ids = rows.map((row) => row.id);
  await writeOutbox(client, deliverNoticeEntries(ids, 'open'));
  return ids;
}

/** Resolves every account's open `kind` notice about these sources, in the caller's transaction. Returns the ids. */
export async function resolveSourceNotices(client: pg.PoolClient, kind: SourceNoticeKind, keys: readonly string[], now: Date): Promise<string[]> {
  if (keys.length === 0) return [];
  const { rows } = await client.query<{ id: string }>(RESOLVE, [kind, [...keys].map(sourceLabelOf).sort(), now]);
  const ids = rows.map((row) => row.id);
  await writeOutbox(client, deliverNoticeEntries(ids, 'resolved'));
  return ids;
}

/** What an account reads when a source keeps failing: what failed, and whether anything is theirs to do. No secrets. */
export function failingMessage(key: string, reason: string, failures: number): string {
  const label = sourceLabelOf(key);
  const head = `Hashwatch could not scan ${label} ${failures} times in a row (${reason}).`;
  if (reason === 'user not found') {
    return `${head} X does not know ${label}: the account may have been renamed, suspended or deleted. Check the handle, and track its new name if it changed.`;
  }
  if (reason === 'X refused the query' || reason === 'too long for the X query limit') {
    return `${head} X rejects the search for this source. Check its spelling; posts are not being detected until it is changed or X accepts it.`;
  }
  return `${head} This is on Hashwatch's side or X's, not in your settings, and is being retried. Posts published meanwhile are detected once scans recover, up to X's 7-day search window.`;
}

function duration(seconds: number): string {
  if (seconds < 3_600) return `${Math.max(1, Math.round(seconds / 60))} min`;
  if (seconds < 172_800) return `${(seconds / 3_600).toFixed(1).replace(/\.0$/, '')} h`;
  return `${(seconds / 86_400).toFixed(1).replace(/\.0$/, '')} days`;
}

/** What an account reads when a source goes quiet for much longer than its pace predicts. */
export function silentMessage(key: string, silentForSeconds: number, typicalGapSeconds: number): string {
  const label = sourceLabelOf(key);
  return `No new post on ${label} for ${duration(silentForSeconds)}, while it usually goes no more than about ${duration(typicalGapSeconds)} without one. Scans of it succeed, so the source itself has gone quiet: check it is still in use (a hashtag abandoned, an account renamed or no longer posting).`;
}

interface ActivityRow {
  source_key: string;
  last_post_at: Date | null;
  gap_histogram: number[];
  samples: number;
  long_gaps: number;
  silent_since: Date | null;
}

const LOAD_ACTIVITY = `SELECT source_key, last_post_at, gap_histogram, samples, long_gaps, silent_since FROM source_activity WHERE source_key = ANY($1::text[])`;

const SAVE_ACTIVITY = `
INSERT INTO source_activity AS s (source_key, last_post_at, gap_histogram, samples, long_gaps, silent_since, updated_at)
SELECT v.key, v.last_post_at, ARRAY(SELECT jsonb_array_elements_text(v.histogram::jsonb)::float8), v.samples, v.long_gaps, v.silent_since, now()
  FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::int[], $5::int[], $6::timestamptz[]) AS v(key, last_post_at, histogram, samples, long_gaps, silent_since)
  -- A source erased while its query ran (its last track deleted) has no cursor any more, and keeps no activity.
  JOIN source_cursors c ON c.source_key = v.key
 ORDER BY v.key
ON CONFLICT (source_key) DO UPDATE
   SET last_post_at = EXCLUDED.last_post_at, gap_histogram = EXCLUDED.gap_histogram, samples = EXCLUDED.samples,
       long_gaps = EXCLUDED.long_gaps, silent_since = EXCLUDED.silent_since, updated_at = now()`;

function stateOf(row: ActivityRow | undefined): SilenceState {
  if (!row) return emptySilenceState();
  const histogram = row.gap_histogram.length === SILENCE_BUCKETS ? row.gap_histogram.map(Number) : emptySilenceState().histogram;
  return { lastPostAt: row.last_post_at?.getTime() ?? null, histogram, samples: row.samples, longGaps: row.long_gaps };
}

/**
 * What a completed scan of `sources` says about them, in the transaction that records it: their `source_failing`
 * notices resolve (the scan succeeded), the posts it found teach each source's pace, and the silence detector
 * judges each: a source found silent raises `source_silent` (once per account), one that is not any more
 * resolves it. Two statements in the common case (read and write the sources' activity), whatever the number of
 * sources and accounts; the notice statements run only for sources whose state changes.
 */
export async function recordScanSuccess(
  client: pg.PoolClient,
  sources: readonly Pick<Source, 'key' | 'failures'>[],
  sourcePosts: ReadonlyMap<string, readonly number[]>,
  now: Date,
  settings: SourceNoticeSettings = DEFAULT_SOURCE_NOTICE_SETTINGS,
): Promise<void> {
  if (sources.length === 0) return;
  const keys = sources.map((source) => source.key).sort();
  // Any source may have a `source_failing` notice open, whatever its cursor says now (a cursor made afresh when a
  // source was tracked again starts at 0 failures): one statement over the few open notices (a partial index).
  await resolveSourceNotices(client, 'source_failing', keys, now);

  const { rows } = await client.query<ActivityRow>(LOAD_ACTIVITY, [keys]);
  const byKey = new Map(rows.map((row) => [row.source_key, row]));
  const raise = new Map<string, string>();
  const resolve: string[] = [];
  const saved: { key: string; state: SilenceState; silentSince: Date | null }[] = [];
  for (const key of keys) {
    const row = byKey.get(key);
    const posts = sourcePosts.get(key) ?? [];
    const state = posts.length > 0 ? observePosts(stateOf(row), posts, settings.silence) : stateOf(row);
    const verdict = silenceVerdict(state, now.getTime(), settings.silence);
    const wasSilent = row?.silent_since != null;
    if (verdict.silent && verdict.silentForSeconds !== null && verdict.typicalGapSeconds !== null) {
      // Raised at every scan that finds it silent: a no-op while the notice is open, and opened once the
      // cooldown of an earlier episode has passed.
      raise.set(key, silentMessage(key, verdict.silentForSeconds, verdict.typicalGapSeconds));
    } else if (wasSilent) {
      resolve.push(key);
    }
    if (row && posts.length === 0 && verdict.silent === wasSilent) continue;
    saved.push({ key, state, silentSince: verdict.silent ? (row?.silent_since ?? now) : null });
  }
  if (saved.length > 0) {
    await client.query(SAVE_ACTIVITY, [
      saved.map((s) => s.key),
      saved.map((s) => (s.state.lastPostAt === null ? null : new Date(s.state.lastPostAt))),
      saved.map((s) => JSON.stringify(s.state.histogram)),
      saved.map((s) => s.state.samples),
      saved.map((s) => s.state.longGaps),
      saved.map((s) => s.silentSince),
    ]);
  }
  await resolveSourceNotices(client, 'source_silent', resolve, now);
  await raiseSourceNotices(client, 'source_silent', raise, now, settings.cooldownSeconds);
}

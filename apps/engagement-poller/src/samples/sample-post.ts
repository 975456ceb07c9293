import type pg from 'pg';
import { insertFeedItems, lockAlertQuota, type NewFeedItem } from '@hashwatch/feed';
import { writeOutbox } from '@hashwatch/outbox';
import { routeAlertsJobs } from '@hashwatch/queues';
import { XRateLimitedError, XUsageCappedError, type XClient } from '@hashwatch/x-api';
import { trackingItemsSql, type TrackingItemRow } from '../tracking/tracking-items';
import { engagementItem, type Engager, type ParentItem } from './engagement-items';
import { fetchEngagers, type FetchedEngagers } from './fetch-engagers';
import type { ReplyCursors } from './reply-cursors';
import { KIND_COLUMNS, SAMPLE_CAP, type SampleKind } from './sample-kinds';

export type SampleOutcome =
  | { kind: 'sampled'; engagers: number; newEngagers: number; stored: number; droppedForQuota: number }
  /** Nothing to do (no rise any more, window closed, nobody wants the category) or another replica holds it. */
  | { kind: 'skipped' }
  /** X refused for now: stop sampling this category this cycle; the post stays a candidate. */
  | { kind: 'held_back'; error: Error }
  | { kind: 'failed'; error: Error };

export interface SampleDeps {
  pool: pg.Pool;
  x: XClient;
  replyCursors: ReplyCursors;
}

interface StateRow {
  count: number;
  sampled: number;
  list: string[] | null;
  conversation_id: string;
  /** Every version of an edited post (x_posts.version_ids); null when never edited. */
  version_ids: string[] | null;
}

const lockState = (kind: SampleKind) => {
  const c = KIND_COLUMNS[kind];
  return `
SELECT s.${c.count} AS count, s.${c.sampled} AS sampled, s.${c.list} AS list,
       COALESCE(x.conversation_id, s.x_post_id) AS conversation_id, x.version_ids
  FROM engagement_states s
  LEFT JOIN x_posts x ON x.id = s.x_post_id
 WHERE s.x_post_id = $1 AND s.poll_until > $2
   FOR UPDATE OF s SKIP LOCKED`;
};

const recordSample = (kind: SampleKind) => {
  const c = KIND_COLUMNS[kind];
  return `
UPDATE engagement_states
   SET ${c.list} = $2::text[], ${c.sampled} = GREATEST(${c.sampled}, ${c.count}), samples_updated_at = $3
 WHERE x_post_id = $1
RETURNING ${c.count} AS count`;
};

// The items whose source has the category on get the new list and the count it was sampled at, and the
// source's current switches (like the refresh does).
const projectSample = (kind: SampleKind) => {
  const c = KIND_COLUMNS[kind];
  return `
UPDATE feed_items f
   SET ${c.list} = $2::text[], ${c.count} = $3, engagement_updated_at = $4,
       track_likes = t.likes, track_reposts = t.reposts, track_comments = t.comments
  FROM unnest($1::text[], $5::boolean[], $6::boolean[], $7::boolean[]) AS t(id, likes, reposts, comments)
 WHERE f.id = t.id`;
};

const STORED_KEYS = `
SELECT f.user_id, f.dedupe_key
  FROM feed_items f
  JOIN unnest($1::text[], $2::text[]) AS c(user_id, dedupe_key) ON f.user_id = c.user_id AND f.dedupe_key = c.dedupe_key`;

const handleOf = (engager: Engager) => `@${engager.username}`;
const sameHandle = (handle: string) => handle.toLowerCase();

/** The sample list after a sample: this sample's accounts (newest first), then the older ones, capped. */
export function mergeSample(sampled: readonly string[], previous: readonly string[]): string[] {
  const seen = new Set<string>();
  const merged: string[] = [];
  for (const handle of [...sampled, ...previous]) {
    const key = sameHandle(handle);
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(handle);
    if (merged.length === SAMPLE_CAP) break;
  }
  return merged;
}

function parentOf(row: TrackingItemRow): ParentItem {
  const sources = row.sources && row.sources.length > 0 ? row.sources : [row.hashtag ? `#${row.hashtag}` : null, row.account ? `@${row.account}` : null].filter((s): s is string => s !== null);
  return { id: row.id, userId: row.user_id, xPostId: row.x_post_id, url: row.url, hashtag: row.hashtag, account: row.account, sources };
}

/**
 * Samples one category of one post and turns its new engagers into engagement items, all in one
 * transaction that holds the post's state row (SKIP LOCKED: a post another replica is sampling or refreshing
 * is skipped, not waited for):
 *
 * 1. the call (one page of liking users, retweeting users, or direct replies), made while holding the row:
 *    if the process dies here the transaction rolls back and the post is still a candidate, so the same
 *    engagers are found by the next sample, once;
 * 2. new engagers are the accounts in the sample that the post's list does not hold yet (first seen for the
 *    post and category); the list becomes this sample's accounts then the older ones, capped at 100;
 * 3. every served account whose source has the category on now, and whose 48 h window is open, gets the new
 *    list on its item and, within its alert quota (usage row locked, in the scanner's lock order), one
 *    `engagement` item per new engager, all carried by the sample's `route-alerts` job in the outbox. The
 *    dedupe key `e:<post>:<kind>:<engager>` and ON CONFLICT make a repeat (a replayed sample) store nothing.
 */
export async function samplePost(deps: SampleDeps, kind: SampleKind, xPostId: string, now: Date): Promise<SampleOutcome> {
  const { pool, x, replyCursors } = deps;
  const flag = KIND_COLUMNS[kind].flag;
  const client = await pool.connect();
  let committed = false;
  try {
    await client.query('BEGIN');
    const state = (await client.query<StateRow>(lockState(kind), [xPostId, now])).rows[0];
    const tracking = state ? (await client.query<TrackingItemRow>(trackingItemsSql('ARRAY[$1::text]', '$2::timestamptz'), [xPostId, now])).rows : [];
    const wanting = tracking.filter((row) => row.served && row[flag]);
    if (!state || state.count <= state.sampled || wanting.length === 0) {
      await client.query('ROLLBACK');
      return { kind: 'skipped' };
    }

    let fetched: FetchedEngagers;
    try {
      const sinceId = kind === 'reply' ? await replyCursors.sinceId(xPostId).catch(() => null) : null;
      fetched = await fetchEngagers(x, kind, { postId: xPostId, versionIds: state.version_ids ?? [xPostId], conversationId: state.conversation_id, sinceId });
    } catch (error) {
      await client.query('ROLLBACK');
      if (error instanceof XRateLimitedError || error instanceof XUsageCappedError) return { kind: 'held_back', error };
      return { kind: 'failed', error: error as Error };
    }

    const previous = state.list ?? [];
    const known = new Set(previous.map(sameHandle));
    const fresh = fetched.engagers.filter((engager) => !known.has(sameHandle(handleOf(engager))));
    const list = mergeSample(fetched.engagers.map(handleOf), previous);

    // Lock order as in the scanner: usage rows before feed_items rows, the feed clock last.
    const quota = fresh.length > 0 ? (await lockAlertQuota(client, wanting.map((row) => row.user_id))).quota : null;
    const count = (await client.query<{ count: number }>(recordSample(kind), [xPostId, list, now])).rows[0]?.count ?? state.count;
    await client.query(projectSample(kind), [
      wanting.map((row) => row.id),
      list,
      count,
      now,
      wanting.map((row) => row.likes),
      wanting.map((row) => row.reposts),
      wanting.map((row) => row.comments),
    ]);

    let stored = 0;
    let droppedForQuota = 0;
    if (quota) {
      // Oldest engager first, so when the quota runs out the earliest events are the ones kept.
      const candidates: NewFeedItem[] = wanting.flatMap((row) => [...fresh].reverse().map((engager) => engagementItem(kind, parentOf(row), engager)));
      const already = await client.query<{ user_id: string; dedupe_key: string }>(STORED_KEYS, [candidates.map((c) => c.userId), candidates.map((c) => c.dedupeKey)]);
      const storedKeys = new Set(already.rows.map((row) => `${row.user_id} ${row.dedupe_key}`));
      const items: NewFeedItem[] = [];
      for (const candidate of candidates) {
        if (storedKeys.has(`${candidate.userId} ${candidate.dedupeKey}`)) continue;
        if (!quota.take(candidate.userId)) {
          droppedForQuota += 1;
          continue;
        }
        items.push(candidate);
      }
      // The feed clock is held from here to COMMIT: only the writes that depend on what was inserted follow.
      const { inserted } = await insertFeedItems(client, items);
      stored = inserted.length;
      const perUser = new Map<string, number>();
      for (const row of inserted) perUser.set(row.userId, (perUser.get(row.userId) ?? 0) + 1);
      await quota.record(client, perUser);
      await writeOutbox(client, routeAlertsJobs(inserted.map((row) => ({ feedItemId: row.id, userId: row.userId }))));
    }
    await client.query('COMMIT');
    committed = true;
    if (kind === 'reply' && fetched.newestId) await replyCursors.advance(xPostId, fetched.newestId).catch(() => undefined);
    return { kind: 'sampled', engagers: fetched.engagers.length, newEngagers: fresh.length, stored, droppedForQuota };
  } catch (error) {
    if (!committed) await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

import type pg from 'pg';
import { insertFeedItems, lockAlertQuota, type AlertQuota, type FeedItemRow, type NewFeedItem } from '@hashwatch/feed';
import { readStoredFilters } from '@hashwatch/post-filters';
import { writeOutboxBatch, type OutboxEntry, type WrittenOutbox } from '@hashwatch/outbox';
import { routeAlertsJobs } from '@hashwatch/queues';
import type { XPost } from '@hashwatch/x-api';
import { candidateSources, hasOwnLinks, matchPosts, postDedupeKey, toFeedItem, type Candidate, type Subscription } from '../matching/match-posts';
import { recordEdits } from './record-edits';
import { linkUnstoredPosts } from './link-unstored';
import { recordScanSuccess, type SourceNoticeSettings } from '../notices/source-notices';
import { SERVED_USER } from '../sources/served-user';
import { column } from './columns';
import { completePack } from './complete-pack';
import { upstreamShares } from './upstream-shares';
import type { Source } from '../sources/source';

export interface StorePackInput {
  /** The sources the query served (all claimed by this cycle). */
  sources: readonly Source[];
  claimId: number;
  posts: readonly XPost[];
  /**
   * Set on the batch that completes the query (its last page): advance every source's cursor to the first
   * page's newest_id and mark the served tracks scanned. Absent on earlier pages, which only store.
   */
  complete?: {
    newestId: string | null;
    /** Per subscription id, the newest post earlier pages matched (health's last_post_at). */
    lastPostAt?: ReadonlyMap<string, Date>;
    /** Per source key, when the new posts earlier pages found were published (ms): the source's pace. */
    sourcePosts?: ReadonlyMap<string, readonly number[]>;
    /** The scan's clock, for the silence detector and the notices. Default: now. */
    now?: Date;
  };
  /** The source notices' settings (failing cycles, silence detector). Default: their defaults. */
  notices?: SourceNoticeSettings;
  /**
   * An account whose remaining alert quota is below this keeps its new items for the completing batch, so
   * that its quota goes to the oldest posts of the whole query. 0 (the default) stores everything now.
   */
  deferBelowQuota?: number;
  /** Posts X billed for these pages, split across the sources the query served and their accounts (upstreamShares). */
  postsRead: number;
  /** Requests X answered for these pages (one per page; failed calls are not counted), split like postsRead. */
  requests: number;
  /** The sources' subscriptions, loaded once per query (loadSubscriptions); loaded here when absent. */
  subscriptions?: readonly Subscription[];
}

export interface StorePackResult {
  /** Feed items stored, each with its alert job written to the outbox. */
  inserted: FeedItemRow[];
  /** Existing items that gained a source. */
  merged: number;
  /** Posts stored before that this batch found in a newer version (their items were updated). */
  edited: number;
  /** New items not stored because their account's alert quota was used up. */
  droppedForQuota: number;
  /** Accounts whose tracks the query served. */
  servedAccounts: number;
  /** Posts with new items kept back for the completing batch (see deferBelowQuota). */
  deferredPostIds: string[];
  /** Per subscription id, the publication time of the newest post it matched in this batch. */
  lastPostAt: Map<string, Date>;
  /** Per source key, when each new post of this batch was published (ms). */
  sourcePosts: Map<string, number[]>;
  /** The alert jobs of `inserted`, written to the outbox: relay them once the transaction commits. */
  outbox: WrittenOutbox;
}

// Lock order, the same in every scanner transaction so two replicas never deadlock each other (an edit of a stored
// post, record-edits.ts, takes its x_posts row, its engagement state and every item of it after the usage rows):
// source_cursors rows (the pack's own), tracks/account_tracks rows (the pack's own), source_activity rows and the
// sources' notices (the pack's own), usage_periods rows
// (sorted by account), x_posts rows (sorted by id), feed_items rows of the locked accounts, feed_clock. The one
// exception is a usage row created in the transaction (once per account and period), locked after x_posts:
// a deadlock that allows is retried by the caller.

const LOAD_SUBSCRIPTIONS = `
SELECT 'tag:' || t.hashtag_norm AS source_key, t.id, 'hashtag' AS kind, t.user_id, t.hashtag AS label, t.hashtag_norm AS norm,
       t.lang, t.exclude_retweets, false AS exclude_replies, NULL::text AS x_user_id, t.track_engagement, t.track_likes,
       t.track_reposts, t.track_comments, t.created_at, t.filters, false AS include_mentions
  FROM tracks t JOIN users u ON u.id = t.user_id
 WHERE t.hashtag_norm = ANY($1::text[]) AND t.status = 'active' AND ${SERVED_USER}
UNION ALL
SELECT 'user:' || a.username_norm, a.id, 'account', a.user_id, a.username, a.username_norm,
       NULL, false, a.exclude_replies, a.x_user_id, a.track_engagement, a.track_likes,
       a.track_reposts, a.track_comments, a.created_at, a.filters, a.include_mentions
  FROM account_tracks a JOIN users u ON u.id = a.user_id
 WHERE a.username_norm = ANY($2::text[]) AND a.status = 'active' AND ${SERVED_USER}`;

const EXISTING_ITEMS = `
SELECT f.user_id, f.dedupe_key, f.sources
  FROM feed_items f
  JOIN unnest($1::text[], $2::text[]) AS c(user_id, dedupe_key) ON f.user_id = c.user_id AND f.dedupe_key = c.dedupe_key`;

// `added` travels as JSON text: unnest would flatten an array of arrays.
const MERGE_SOURCES = `
UPDATE feed_items f
   SET sources = COALESCE(f.sources, '{}'::text[]) || ARRAY(SELECT jsonb_array_elements_text(m.added::jsonb))
  FROM unnest($1::text[], $2::text[], $3::text[]) AS m(user_id, dedupe_key, added)
 WHERE f.user_id = m.user_id AND f.dedupe_key = m.dedupe_key`;

// Recorded with the usage lock, in one round trip (the lock is taken first, so existing usage rows are locked
// before x_posts rows). Every matched post goes into x_posts (detected, whether or not a quota let it be
// stored): a post the insert did not create was seen before, and only those can have items already. A post is
// keyed by its edit chain's first id; one that is already an edit keeps its chain (`version_ids`, JSON text here
// because unnest flattens an array of arrays) and is edited.
const RECORD_POSTS = {
  ctes: `created AS (
  INSERT INTO x_posts (id, author_id, author_username, author_name, text, lang, conversation_id, is_retweet, is_reply, posted_at,
                       version_ids, edited_at, author_verified, author_followers, is_quote, has_links)
  SELECT r.id, r.author_id, r.author_username, r.author_name, r.text, r.lang, r.conversation_id, r.is_retweet, r.is_reply,
         r.posted_at, CASE WHEN r.versions IS NOT NULL THEN ARRAY(SELECT jsonb_array_elements_text(r.versions::jsonb)) END,
         CASE WHEN r.versions IS NOT NULL THEN now() END, r.author_verified, r.author_followers, r.is_quote, r.has_links
    FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::boolean[],
                $10::boolean[], $11::timestamptz[], $12::text[], $13::boolean[], $14::int[], $15::boolean[], $16::boolean[])
      AS r(id, author_id, author_username, author_name, text, lang, conversation_id, is_retweet, is_reply, posted_at, versions,
           author_verified, author_followers, is_quote, has_links)
   ORDER BY 1
  ON CONFLICT (id) DO NOTHING
  RETURNING id
)`,
  select: 'ARRAY(SELECT id FROM created) AS created',
};

// The subscriptions still there, read after the usage rows are locked: a track, account track or account deleted
// since the query loaded them is gone by now, or its deletion waits behind this transaction's usage lock (the
// gateway's erasure takes the scanner's lock order) and then erases what this transaction stored.
const LIVE_SUBSCRIPTIONS = `
SELECT t.id FROM tracks t WHERE t.id = ANY($1::text[]) AND t.status = 'active'
UNION ALL
SELECT a.id FROM account_tracks a WHERE a.id = ANY($2::text[]) AND a.status = 'active'`;

// Posts this transaction recorded for matches whose source is gone: no feed may ever hold them.
const UNRECORD_POSTS = `DELETE FROM x_posts WHERE id = ANY($1::text[])`;

interface SubscriptionRow {
  source_key: string;
  id: string;
  kind: 'hashtag' | 'account';
  user_id: string;
  label: string;
  norm: string;
  lang: string | null;
  exclude_retweets: boolean;
  exclude_replies: boolean;
  x_user_id: string | null;
  track_engagement: boolean;
  track_likes: boolean;
  track_reposts: boolean;
  track_comments: boolean;
  created_at: Date;
  filters: unknown;
  include_mentions: boolean;
}

const toSubscription = (row: SubscriptionRow): Subscription => ({
  id: row.id,
  kind: row.kind,
  sourceKey: row.source_key,
  userId: row.user_id,
  label: row.label,
  norm: row.norm,
  lang: row.lang,
  excludeRetweets: row.exclude_retweets,
  excludeReplies: row.exclude_replies,
  xUserId: row.x_user_id,
  trackEngagement: row.track_engagement,
  trackLikes: row.track_likes,
  trackReposts: row.track_reposts,
  trackComments: row.track_comments,
  createdAt: row.created_at,
  filters: readStoredFilters(row.filters),
  includeMentions: row.include_mentions,
});

/** The tracks and account tracks of served accounts that watch these sources. */
export async function loadSubscriptions(db: Pick<pg.Pool, 'query'>, sources: readonly Source[]): Promise<Subscription[]> {
  const tags = sources.filter((source) => source.kind === 'tag').map((source) => source.name);
  const users = sources.filter((source) => source.kind === 'user').map((source) => source.name);
  const { rows } = await db.query<SubscriptionRow>(LOAD_SUBSCRIPTIONS, [tags, users]);
  return rows.map(toSubscription);
}

const itemKey = (userId: string, dedupeKey: string) => `${userId}\u0000${dedupeKey}`;

/**
 * Locks the alert quota of each account, in account order. With `posts`, records them in x_posts in the same
 * round trip and returns the ids it created.
 */
async function lockUsage(client: pg.PoolClient, userIds: readonly string[], posts: readonly Candidate[]): Promise<{ quota: AlertQuota; created: Set<string> }> {
  const recordPosts =
    posts.length === 0
      ? undefined
      : {
          ...RECORD_POSTS,
          values: [
            column(posts, (c) => c.post.rootId),
            column(posts, (c) => c.post.authorId ?? ''),
            column(posts, (c) => c.post.author?.username ?? ''),
            column(posts, (c) => c.post.author?.name ?? ''),
            column(posts, (c) => c.post.text),
            column(posts, (c) => c.post.lang),
            column(posts, (c) => c.post.conversationId),
            column(posts, (c) => c.post.isRetweet),
            column(posts, (c) => c.post.isReply),
            column(posts, (c) => c.postedAt.toISOString()),
            column(posts, (c) => (c.post.id === c.post.rootId ? null : JSON.stringify(c.post.editHistoryPostIds))),
            column(posts, (c) => c.post.author?.verified ?? null),
            column(posts, (c) => (c.post.author?.followersCount == null ? null : Math.min(c.post.author.followersCount, 2_147_483_647))),
            column(posts, (c) => c.post.isQuote),
            column(posts, (c) => hasOwnLinks(c.post)),
          ],
        };
  const { quota, alongside } = await lockAlertQuota<{ created: string[] }>(client, userIds, recordPosts);
  return { quota, created: new Set(alongside?.created ?? []) };
}

/**
 * The candidates whose matches are still there (see LIVE_SUBSCRIPTIONS), each keeping only its live matches. The
 * posts this transaction recorded (`created`) that no remaining candidate needs are removed again, so a source
 * deleted while its query ran leaves no stored post behind.
 */
async function keepLiveMatches(client: pg.PoolClient, candidates: Candidate[], created: ReadonlySet<string>): Promise<Candidate[]> {
  const kinds = new Map(candidates.flatMap((c) => c.matches.map((m) => [m.id, m.kind] as const)));
  const idsOf = (kind: Subscription['kind']) => [...kinds].filter(([, k]) => k === kind).map(([id]) => id).sort();
  const { rows } = await client.query<{ id: string }>(LIVE_SUBSCRIPTIONS, [idsOf('hashtag'), idsOf('account')]);
  if (rows.length === kinds.size) return candidates;
  const live = new Set(rows.map((row) => row.id));
  const kept = candidates.flatMap((c): Candidate[] => {
    const liveMatches = c.matches.filter((m) => live.has(m.id));
    return liveMatches.length > 0 ? [{ ...c, matches: liveMatches }] : [];
  });
  const needed = new Set(kept.map((c) => c.post.rootId));
  const orphans = [...created].filter((id) => !needed.has(id));
  if (orphans.length > 0) await client.query(UNRECORD_POSTS, [orphans.sort()]);
  return kept;
}


/** The sources of items already stored for candidates of posts seen before (by account and dedupe key). */
async function storedSources(client: pg.PoolClient, candidates: readonly Candidate[], created: ReadonlySet<string>): Promise<Map<string, string[]>> {
  const existing = new Map<string, string[]>();
  // Fresh posts, the usual case, skip the per-item lookup.
  const maybeStored = candidates.filter((c) => !created.has(c.post.rootId));
  if (maybeStored.length === 0) return existing;
  const { rows: found } = await client.query<{ user_id: string; dedupe_key: string; sources: string[] | null }>(EXISTING_ITEMS, [
    column(maybeStored, (c) => c.userId),
    column(maybeStored, (c) => postDedupeKey(c.post)),
  ]);
  for (const row of found) existing.set(itemKey(row.user_id, row.dedupe_key), row.sources ?? []);
  return existing;
}

/**
 * What becomes of each candidate: new sources merged into an item already stored, a new item within the
 * account's quota, kept back for the completing batch (below `deferBelow` units left), or dropped (none left).
 * Candidates come oldest post first, so the quota goes to the oldest posts.
 */
function sortCandidates(candidates: readonly Candidate[], existing: ReadonlyMap<string, string[]>, quota: AlertQuota, deferBelow: number) {
  const merges: { userId: string; dedupeKey: string; added: string[] }[] = [];
  const fresh: NewFeedItem[] = [];
  const deferred = new Set<string>();
  let dropped = 0;
  for (const candidate of candidates) {
    const dedupeKey = postDedupeKey(candidate.post);
    const stored = existing.get(itemKey(candidate.userId, dedupeKey));
    if (stored) {
      const added = candidateSources(candidate).filter((label) => !stored.includes(label));
      if (added.length > 0) merges.push({ userId: candidate.userId, dedupeKey, added });
    } else if (quota.remaining(candidate.userId) < deferBelow) {
      deferred.add(candidate.post.id);
    } else if (quota.take(candidate.userId)) {
      fresh.push(toFeedItem(candidate));
    } else {
      dropped += 1;
    }
  }
  return { merges, fresh, deferred, dropped };
}

/**
 * Stores what one page (or the whole) of a packed query found, inside the caller's transaction, so that
 * items, quota, alert hand-off and (on the completing batch) cursors commit together or not at all:
 *
 * 1. matches the posts (pure), then, on the completing batch, advances the cursor of every source of the
 *    pack to the first page's newest_id (never backwards) and marks the served tracks scanned
 *    (last_scanned_at, last_post_at, scan_error cleared), in one statement;
 * 2. locks each served account's usage row, so concurrent replicas storing for one account run one after
 *    the other, records the matched posts in x_posts (same statement), and reads what is already stored for
 *    the posts seen before;
 * 3. merges new sources into items already stored (no new item, quota unit or alert), and inserts the new
 *    items, oldest post first, up to the account's remaining alert quota;
 * 4. counts the inserted items (as returned by the insert) against the quota, adds the account's share of
 *    the posts read and requests (and each source's, upstreamShares), and writes the inserted items'
 *    `route-alerts` jobs (up to 500 items each) to the outbox (all of them in one outbox row, in the same
 *    statement as the usage update).
 *
 * Earlier pages commit before the cursor moves: if the query then fails or the process dies, the next
 * cycle reads those pages again and finds their items stored (no second item, unit or alert).
 *
 * The feed insert takes the feed clock, which serialises every feed writer until commit, so it comes last
 * but for the two statements that depend on what it returned: commit right after.
 */
export async function storePack(client: pg.PoolClient, input: StorePackInput): Promise<StorePackResult> {
  const result: StorePackResult = { inserted: [], merged: 0, edited: 0, droppedForQuota: 0, servedAccounts: 0, deferredPostIds: [], lastPostAt: new Map(), sourcePosts: new Map(), outbox: { rowIds: [], entries: [], weight: 0 } };
  const subscriptions = input.subscriptions ?? (await loadSubscriptions(client, input.sources));
  const matched = matchPosts(input.posts, input.sources, subscriptions);
  const { lastPostAt } = matched;
  let { candidates } = matched;
  result.lastPostAt = lastPostAt;
  result.sourcePosts = matched.sourcePosts;
  for (const [id, at] of input.complete?.lastPostAt ?? []) {
    const current = lastPostAt.get(id);
    if (!current || current.getTime() < at.getTime()) lastPostAt.set(id, at);
  }

  if (input.complete) {
    await completePack(client, input, input.complete.newestId, subscriptions, lastPostAt);
    // The scan succeeded: its failing notices resolve, and its posts teach and judge each source's pace.
    const sourcePosts = new Map<string, number[]>();
    for (const [key, times] of [...(input.complete.sourcePosts ?? []), ...matched.sourcePosts]) sourcePosts.set(key, [...(sourcePosts.get(key) ?? []), ...times]);
    await recordScanSuccess(client, input.sources, sourcePosts, input.complete.now ?? new Date(), input.notices);
  }

  const served = [...new Set(subscriptions.map((s) => s.userId))].sort();
  result.servedAccounts = served.length;
  const upstream = upstreamShares(input.sources, subscriptions, { reads: input.postsRead, requests: input.requests });
  if (served.length === 0 || (candidates.length === 0 && upstream === null)) return result;

  // One x_posts row per matched post (per edit chain), recorded with the usage lock.
  const posts = [...new Map(candidates.map((c) => [c.post.rootId, c])).values()];
  const { quota, created } = await lockUsage(client, served, posts);
  if (candidates.length > 0) candidates = await keepLiveMatches(client, candidates, created);
  // A newer version of a post stored before: every item of it shows the new text, no second item or alert.
  result.edited = await recordEdits(client, candidates.filter((c) => c.post.id !== c.post.rootId && !created.has(c.post.rootId)).map((c) => c.post));
  const existing = await storedSources(client, candidates, created);
  const { merges, fresh, deferred, dropped } = sortCandidates(candidates, existing, quota, input.deferBelowQuota ?? 0);
  result.droppedForQuota = dropped;

  if (merges.length > 0) {
    await client.query(MERGE_SOURCES, [column(merges, (m) => m.userId), column(merges, (m) => m.dedupeKey), column(merges, (m) => JSON.stringify(m.added))]);
    result.merged = merges.length;
  }

  // Before the feed insert, which holds the feed clock until commit: the posts this batch leaves in no feed.
  const held = new Set([...fresh.map((item) => item.xPostId), ...candidates.filter((c) => existing.has(itemKey(c.userId, postDedupeKey(c.post)))).map((c) => c.post.rootId)]);
  await linkUnstoredPosts(client, candidates, held);

  const { inserted } = await insertFeedItems(client, fresh);
  result.inserted = inserted;

  const alerts = new Map<string, number>();
  for (const row of inserted) alerts.set(row.userId, (alerts.get(row.userId) ?? 0) + 1);
  const usage = quota.recordStatement(alerts, upstream ?? undefined);
  const jobs: OutboxEntry[] = routeAlertsJobs(inserted.map((row) => ({ feedItemId: row.id, userId: row.userId })));
  if (usage || jobs.length > 0) {
    // Quota units, posts read and the alert jobs (one outbox row for the whole batch) in one round trip: the
    // usage update runs alongside the outbox insert. Either part may be empty.
    result.outbox = await writeOutboxBatch(client, jobs, usage);
  }
  result.deferredPostIds = [...deferred];
  return result;
}

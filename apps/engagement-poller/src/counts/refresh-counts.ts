import type pg from 'pg';
import { statementName } from '@hashwatch/db';
import { XRateLimitedError, XUsageCappedError, type XClient, type XPostMetrics } from '@hashwatch/x-api';
import { erasePostsDeletedOnX } from '@hashwatch/feed';
import { trackingItemsSql } from '../tracking/tracking-items';

/** X's posts lookup (`GET /2/tweets?ids=`) takes up to 100 ids per call. */
export const LOOKUP_BATCH = 100;

// Claims due posts, oldest due first, by locking them: SKIP LOCKED, so replicas (and this replica's parallel
// batches) take disjoint batches. The rows stay locked through the lookup; a crash rolls the claim back and
// leaves the posts due. The claim writes nothing: each claimed state is written once, after the lookup, by
// WRITE_COUNTS (a full refresh, or only the next poll). A claim that rescheduled as it locked (one UPDATE)
// would write every state twice when the counts changed, and engagement_states updates are never HOT
// (next_poll_at and the rise indexes are indexed). A post that another batch (this replica's or another's)
// refreshed and committed while this claim was scanning is not taken again: FOR UPDATE re-checks the WHERE
// clause on the newest row version, whose next_poll_at has moved. The counts returned are the stored ones.
//
// A post is also taken when due within a twentieth of its interval (at most 2 s): a tick of another cadence (each
// scheduler keeps its own grid) then refreshes it at most 5 % early, and reschedules it from its own slot, which
// the post's own next tick still finds due. Taken only when due, such a tick refreshed a post a moment before its
// grid's tick was due, moved it off that grid, and the next tick missed it: that refresh came at twice the
// cadence. The first bound keeps the index range scan.
//
// An edited post's counts are the sum of its versions' (X counts each engagement on the version shown at the
// time): the chain comes from x_posts, read by a subquery so that FOR UPDATE locks only the states.
export const CLAIM = `
SELECT x_post_id, retweet_count, like_count, reply_count, counts_updated_at,
       (SELECT x.version_ids FROM x_posts x WHERE x.id = engagement_states.x_post_id) AS version_ids
  FROM engagement_states
 WHERE next_poll_at <= $1::timestamptz + interval '2 seconds'
   AND next_poll_at <= $1::timestamptz + make_interval(secs => LEAST(interval_seconds * 0.05, 2))
   AND poll_until > $1::timestamptz
 ORDER BY next_poll_at
 LIMIT $2
   FOR UPDATE SKIP LOCKED`;

// The full refresh, for the posts whose counts changed, that X no longer has, that an account started
// tracking (discovery nulls counts_updated_at), whose accounts' sources, cadence or subscription changed
// (markChangedAccounts nulls it too), or that were not fully refreshed for a while (a safety net). One
// statement writes:
// - the post's state: real counts (unless X no longer has the post: then polling stops), the next poll at
//   the fastest cadence among the served accounts whose window is open, and a window that ends 48 h after
//   the latest detection still tracking it (none left: it ends now). A category no served account wants
//   right now moves its sampled baseline with the count, so no sample is spent on it and the sampler's
//   "rose since the last sample" means rose while someone wanted it. A category switched back on (on now,
//   off on the item) gets a baseline just under its count: one sample, at the lowest priority, refreshes
//   its list and finds the accounts that engaged while it was off;
// - each tracking item of a served account: counts and lists of the categories its source has on now, and
//   the source's current switches (the notifier reads them from the parent item to route engagement
//   alerts). Items whose values would not change are not written: a refresh that finds nothing new writes
//   one narrow row per post, not one wide row per account, and engagement_updated_at says when the item's
//   engagement last changed.
//
// The claimed posts that need none of this (`$8`, counts unchanged) are only rescheduled, in the same
// statement: one narrow row per post is the whole cost of a refresh that finds nothing new (nearly every one in
// a steady state: docs/BENCHMARKS.md, Engagement). `switches_written` counts the items whose category switches
// this statement changed: the notifier routes engagement alerts by them, so such a batch commits synchronously
// (see COMMIT_ASYNC).
export const WRITE_COUNTS = `
WITH rescheduled AS (
  UPDATE engagement_states s
     SET next_poll_at = $6::timestamptz + make_interval(secs => s.interval_seconds)
   WHERE s.x_post_id = ANY ($8::text[])
  RETURNING 1
), fresh AS (
  -- Null counts: X did not return the post (outcome 'gone' or 'unknown'); its stored counts stay.
  SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::text[])
    AS c(x_post_id, retweet_count, like_count, reply_count, outcome)
), tracking AS (${trackingItemsSql('$1::text[]', '$6::timestamptz')}
), per_post AS (
  SELECT x_post_id,
         min(refresh_seconds) FILTER (WHERE served) AS interval_seconds,
         max(detected_at) + interval '48 hours' AS poll_until,
         bool_or(served AND likes AND $7::boolean) AS likes_wanted,
         bool_or(served AND reposts) AS reposts_wanted,
         bool_or(served AND comments) AS comments_wanted,
         bool_or(served AND likes AND NOT shown_likes AND $7::boolean) AS likes_resumed,
         bool_or(served AND reposts AND NOT shown_reposts) AS reposts_resumed,
         bool_or(served AND comments AND NOT shown_comments) AS comments_resumed
    FROM tracking
   GROUP BY x_post_id
), states AS (
  UPDATE engagement_states s
     SET retweet_count = COALESCE(c.retweet_count, s.retweet_count),
         like_count = COALESCE(c.like_count, s.like_count),
         reply_count = COALESCE(c.reply_count, s.reply_count),
         sampled_retweets = CASE WHEN p.reposts_resumed THEN LEAST(s.sampled_retweets, GREATEST(COALESCE(c.retweet_count, s.retweet_count) - 1, 0))
                                 WHEN p.reposts_wanted THEN LEAST(s.sampled_retweets, COALESCE(c.retweet_count, s.retweet_count))
                                 ELSE COALESCE(c.retweet_count, s.retweet_count) END,
         sampled_likes = CASE WHEN p.likes_resumed THEN LEAST(s.sampled_likes, GREATEST(COALESCE(c.like_count, s.like_count) - 1, 0))
                              WHEN p.likes_wanted THEN LEAST(s.sampled_likes, COALESCE(c.like_count, s.like_count))
                              ELSE COALESCE(c.like_count, s.like_count) END,
         sampled_replies = CASE WHEN p.comments_resumed THEN LEAST(s.sampled_replies, GREATEST(COALESCE(c.reply_count, s.reply_count) - 1, 0))
                                WHEN p.comments_wanted THEN LEAST(s.sampled_replies, COALESCE(c.reply_count, s.reply_count))
                                ELSE COALESCE(c.reply_count, s.reply_count) END,
         counts_updated_at = $6::timestamptz,
         interval_seconds = COALESCE(p.interval_seconds, s.interval_seconds),
         poll_until = CASE WHEN c.outcome = 'gone' THEN $6::timestamptz ELSE COALESCE(p.poll_until, $6::timestamptz) END,
         next_poll_at = $6::timestamptz + make_interval(secs => COALESCE(p.interval_seconds, s.interval_seconds))
    FROM fresh c
    LEFT JOIN per_post p ON p.x_post_id = c.x_post_id
   WHERE s.x_post_id = c.x_post_id
  RETURNING s.x_post_id, s.retweet_count, s.like_count, s.reply_count, s.retweeters, s.likers, s.repliers
), items AS (
  UPDATE feed_items f
     SET retweet_count = CASE WHEN t.reposts THEN n.retweet_count ELSE f.retweet_count END,
         like_count = CASE WHEN t.likes THEN n.like_count ELSE f.like_count END,
         reply_count = CASE WHEN t.comments THEN n.reply_count ELSE f.reply_count END,
         retweeters = CASE WHEN t.reposts THEN n.retweeters ELSE f.retweeters END,
         likers = CASE WHEN t.likes THEN n.likers ELSE f.likers END,
         repliers = CASE WHEN t.comments THEN n.repliers ELSE f.repliers END,
         track_likes = t.likes,
         track_reposts = t.reposts,
         track_comments = t.comments,
         engagement_updated_at = $6::timestamptz
    FROM tracking t
    JOIN states n ON n.x_post_id = t.x_post_id
   WHERE f.id = t.id AND t.served
     AND (   (t.reposts AND (f.retweet_count, f.retweeters) IS DISTINCT FROM (n.retweet_count, n.retweeters))
          OR (t.likes AND (f.like_count, f.likers) IS DISTINCT FROM (n.like_count, n.likers))
          OR (t.comments AND (f.reply_count, f.repliers) IS DISTINCT FROM (n.reply_count, n.repliers))
          OR (f.track_likes, f.track_reposts, f.track_comments) IS DISTINCT FROM (t.likes, t.reposts, t.comments))
  -- RETURNING sees the new row: the switches the item held before are the ones the tracking CTE read.
  RETURNING (t.shown_likes, t.shown_reposts, t.shown_comments) IS DISTINCT FROM (t.likes, t.reposts, t.comments) AS switched
)
SELECT (SELECT count(*) FROM states)::int + (SELECT count(*) FROM rescheduled)::int AS refreshed,
       (SELECT count(*) FROM items)::int AS items_written,
       (SELECT count(*) FROM items WHERE switched)::int AS switches_written`;

// The commit of a batch that wrote only counts, lists copied from the states, windows and schedules: it
// may be lost if PostgreSQL itself crashes in the next moments (never if only the poller dies). Losing it
// puts the posts back as they were before the refresh, still due with their old counts (and a null or old
// counts_updated_at), so the next cycle refreshes them again; nothing else can have been built on it durably,
// because any later synchronous commit (a sample's items and outbox rows, a delivery) flushes the WAL up to
// itself, this commit included. Batches that write an item's switches commit synchronously (plain COMMIT),
// like samples, items and outbox rows always do. docs/decisions/engagement.md.
const COMMIT_ASYNC = 'SET LOCAL synchronous_commit = off; COMMIT';

// A post X answers as not found was deleted on X (deleting any version deletes the whole edit chain): it is erased
// (erasePostsDeletedOnX) and its polling stops with the refresh (outcome 'gone').
/** X's problem type for an id it does not have (deleted, or never was); others (a protected author) are not deletions. */
function isNotFound(type: string): boolean {
  return type.endsWith('/resource-not-found');
}

interface ClaimedRow {
  x_post_id: string;
  retweet_count: number;
  like_count: number;
  reply_count: number;
  /** When the post last went through the full refresh; null asks for one. */
  counts_updated_at: Date | null;
  /** Every version of an edited post, oldest first; null for a post never edited. */
  version_ids: string[] | null;
}

export type BatchOutcome =
  | { kind: 'empty' }
  | {
      kind: 'refreshed';
      refreshed: number;
      /** Posts whose counts X reported different from the stored ones. */
      changed: number;
      gone: number;
      /** Of `gone`, the posts X deleted: their content was erased. */
      deleted: number;
      /** Posts that went through the full refresh (the rest were only rescheduled). */
      full: number;
      itemsWritten: number;
    }
  /** X refused for now (rate limit or usage cap): the batch stays due, stop claiming this cycle. */
  | { kind: 'held_back'; error: Error }
  /** The lookup failed (timeout, 5xx...): the batch skips this refresh and is due again one interval later. */
  | { kind: 'failed'; posts: number; error: Error };

/** An edited post's counts: the sum over its versions X answered; null when it answered none. */
function sumMetrics(versions: readonly (XPostMetrics | null)[]): XPostMetrics | null {
  const answered = versions.filter((metrics): metrics is XPostMetrics => metrics !== null);
  if (answered.length <= 1) return answered[0] ?? null;
  return answered.reduce((sum, metrics) => ({
    retweetCount: sum.retweetCount + metrics.retweetCount,
    replyCount: sum.replyCount + metrics.replyCount,
    likeCount: sum.likeCount + metrics.likeCount,
    quoteCount: sum.quoteCount + metrics.quoteCount,
    bookmarkCount: sum.bookmarkCount === null || metrics.bookmarkCount === null ? null : sum.bookmarkCount + metrics.bookmarkCount,
    impressionCount: sum.impressionCount === null || metrics.impressionCount === null ? null : sum.impressionCount + metrics.impressionCount,
  }));
}

type FullRefresh = { id: string; metrics: XPostMetrics | null; outcome: 'found' | 'gone' | 'unknown' };

/**
 * Writes a claimed batch: the full refresh of `full`, the next poll of `rescheduled`, then commits, without
 * waiting for the WAL flush unless an item's switches changed (COMMIT_ASYNC).
 */
async function writeAndCommit(client: pg.PoolClient, now: Date, likesSampled: boolean, full: FullRefresh[], rescheduled: string[], deleted: readonly string[] = []): Promise<number> {
  if (deleted.length > 0) await erasePostsDeletedOnX(client, deleted, now);
  // Named: prepared once per connection, so a cycle of 1,000 batches does not plan this 1,000 times.
  const { rows } = await client.query<{ refreshed: number; items_written: number; switches_written: number }>({
    name: 'engagement-write-counts',
    text: WRITE_COUNTS,
    values: [
      full.map((post) => post.id),
      full.map((post) => post.metrics?.retweetCount ?? null),
      full.map((post) => post.metrics?.likeCount ?? null),
      full.map((post) => post.metrics?.replyCount ?? null),
      full.map((post) => post.outcome),
      now,
      likesSampled,
      rescheduled,
    ],
  });
  const summary = rows[0];
  await client.query(summary && summary.switches_written === 0 ? COMMIT_ASYNC : 'COMMIT');
  return summary?.items_written ?? 0;
}

/** Runs a claim in its turn; see claimTurns. */
export type ClaimTurn = <T>(claim: () => Promise<T>) => Promise<T>;

/**
 * One claim at a time among one cycle's parallel batches (the lookups still overlap). Claiming at once, they
 * split a few due posts between them, each locking some before the others' scans reached them: three posts
 * went out in two lookups, one X call spent for nothing and a doubled refresh seen by the cadence checks. In
 * turn, each claim takes the next 100 due posts, so a cycle makes the fewest calls.
 */
export function claimTurns(): ClaimTurn {
  let tail: Promise<unknown> = Promise.resolve();
  return (claim) => {
    const run = tail.then(claim);
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * Claims up to 100 due posts, reads their counts with one posts lookup, and in the same transaction writes
 * each claimed state once: the full refresh (counts to the states and to every tracking item) for the posts
 * that need it, the next poll for the others. Counts for all tracked posts come only from these batched
 * lookups: one call per 100 posts, whatever the number of accounts tracking them.
 */
export async function refreshCountsBatch(
  pool: pg.Pool,
  x: XClient,
  now: Date,
  options: { likesSampled: boolean; batchSize?: number; fullRefreshSeconds: number; claimTurn?: ClaimTurn },
): Promise<BatchOutcome> {
  const client = await pool.connect();
  try {
    const claim = async () => {
      await client.query('BEGIN');
      return client.query<ClaimedRow>({ ...statementName(client, 'engagement-claim'), text: CLAIM, values: [now, options.batchSize ?? LOOKUP_BATCH] });
    };
    const { rows } = await (options.claimTurn ?? ((run) => run()))(claim);
    if (rows.length === 0) {
      await client.query('COMMIT');
      return { kind: 'empty' };
    }
    const versionsOf = (row: ClaimedRow) => (row.version_ids && row.version_ids.length > 0 ? row.version_ids : [row.x_post_id]);
    const ids = [...new Set(rows.flatMap(versionsOf))];
    let lookup: Awaited<ReturnType<XClient['postCounts']>>;
    try {
      // Counts only (tweet.fields=public_metrics, no expansions): nothing else of the post is read here. An edited
      // post's versions ride in the same calls, 100 ids each.
      lookup = { posts: [], errors: [] };
      for (let at = 0; at < ids.length; at += LOOKUP_BATCH) {
        const part = await x.postCounts(ids.slice(at, at + LOOKUP_BATCH));
        lookup.posts.push(...part.posts);
        lookup.errors.push(...part.errors);
      }
    } catch (error) {
      if (error instanceof XRateLimitedError || error instanceof XUsageCappedError) {
        await client.query('ROLLBACK');
        return { kind: 'held_back', error };
      }
      // This refresh is skipped: the posts move to their next one.
      await writeAndCommit(client, now, options.likesSampled, [], rows.map((row) => row.x_post_id));
      return { kind: 'failed', posts: rows.length, error: error as Error };
    }
    const found = new Map(lookup.posts.map((post) => [post.id, post]));
    const gone = new Set(lookup.errors.map((problem) => problem.resourceId).filter((id): id is string => id !== null));
    const notFound = new Set(lookup.errors.filter((problem) => isNotFound(problem.type)).map((problem) => problem.resourceId));
    const stale = now.getTime() - options.fullRefreshSeconds * 1000;
    const full: FullRefresh[] = [];
    const rescheduled: string[] = [];
    const deleted: string[] = [];
    let changed = 0;
    for (const row of rows) {
      const versions = versionsOf(row);
      const metrics = sumMetrics(versions.map((id) => found.get(id)?.metrics ?? null));
      const moved = metrics !== null && (metrics.retweetCount !== row.retweet_count || metrics.likeCount !== row.like_count || metrics.replyCount !== row.reply_count);
      if (moved) changed += 1;
      const isGone = versions.some((id) => gone.has(id));
      if (versions.some((id) => notFound.has(id))) deleted.push(row.x_post_id);
      const outcome = isGone ? 'gone' : metrics ? 'found' : 'unknown';
      if (moved || outcome === 'gone' || row.counts_updated_at === null || row.counts_updated_at.getTime() <= stale) full.push({ id: row.x_post_id, metrics: outcome === 'gone' ? null : metrics, outcome });
      else rescheduled.push(row.x_post_id);
    }
    const itemsWritten = await writeAndCommit(client, now, options.likesSampled, full, rescheduled, deleted.sort());
    return { kind: 'refreshed', refreshed: rows.length, changed, gone: full.filter((post) => post.outcome === 'gone').length, deleted: deleted.length, full: full.length, itemsWritten };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

// The statements of the retention sweep (retention-sweep.ts). Each batch is its own short transaction: rows are
// picked with FOR UPDATE SKIP LOCKED, so sweeps running at once on several replicas take disjoint rows and never
// wait on each other, and a feed writer waits at most one batch for a row the sweep holds.
import { UNPAID_SINCE } from '@hashwatch/accounts';

/**
 * Accounts with at least one feed item past their plan's retention (by detected_at, the moment the item entered
 * the feed): one probe of the (user_id, detected_at) feed index per account. `$1` is now.
 */
export const EXPIRED_ACCOUNTS = `
SELECT u.id AS user_id, $1::timestamptz - make_interval(days => p.retention_days) AS cutoff
  FROM users u JOIN plans p ON p.id = u.plan_id
 WHERE EXISTS (SELECT 1 FROM feed_items f
                WHERE f.user_id = u.id AND f.detected_at < $1::timestamptz - make_interval(days => p.retention_days))
 ORDER BY u.id`;

/**
 * Deletes up to `$3` items of account `$1` detected before `$2`, with their feed_item_sources rows (which have no
 * foreign key to the item; see prisma/migrations/20261125190000_feed_item_sources). Their deliveries go with them
 * (ON DELETE CASCADE, through deliveries_feed_item_id_idx), except that an item with a delivery still pending is
 * kept until that delivery is delivered or fails for good. Answers the posts the deleted items referenced.
 */
export const DELETE_EXPIRED_ITEMS = `
WITH picked AS (
  SELECT f.ctid FROM feed_items f
   WHERE f.user_id = $1 AND f.detected_at < $2::timestamptz
     AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.feed_item_id = f.id AND d.status = 'pending')
   ORDER BY f.detected_at DESC, f.id DESC
   LIMIT $3
   FOR UPDATE OF f SKIP LOCKED
), gone AS (
  DELETE FROM feed_items f WHERE f.ctid = ANY(ARRAY(SELECT ctid FROM picked))
  RETURNING f.id, f.user_id, f.sources, f.detected_at, f.x_post_id
), gone_sources AS (
  DELETE FROM feed_item_sources s
   USING gone g CROSS JOIN LATERAL unnest(g.sources) AS src(source)
   WHERE s.user_id = g.user_id AND s.source = src.source AND s.detected_at = g.detected_at AND s.item_id = g.id
  RETURNING 1
)
SELECT (SELECT count(*) FROM gone)::int AS items,
       (SELECT count(*) FROM gone_sources)::int AS sources,
       ARRAY(SELECT DISTINCT x_post_id FROM gone ORDER BY 1) AS post_ids`;

/**
 * Locks the posts `$1` in id order before they are checked: of two sweeps that deleted items of one post, the
 * second to take the lock sees the first's deletion committed (its check is a new statement, with a new
 * snapshot) and deletes the post; without the lock each could see the other's items and both keep it.
 */
export const LOCK_POSTS = `SELECT id FROM x_posts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`;

/**
 * Deletes the posts among `$1` that no feed item references, with their engagement state, unless the engagement
 * poller still polls them (poll_until after `$2`, now): an engagement event could still be stored for them.
 */
export const DELETE_UNREFERENCED_POSTS = `
WITH posts AS (
  DELETE FROM x_posts x
   WHERE x.id = ANY($1::text[])
     AND NOT EXISTS (SELECT 1 FROM feed_items f WHERE f.x_post_id = x.id)
     AND NOT EXISTS (SELECT 1 FROM engagement_states s WHERE s.x_post_id = x.id AND s.poll_until > $2::timestamptz)
  RETURNING x.id
), states AS (
  DELETE FROM engagement_states s
   WHERE s.x_post_id = ANY($1::text[]) AND s.poll_until <= $2::timestamptz
     AND NOT EXISTS (SELECT 1 FROM feed_items f WHERE f.x_post_id = s.x_post_id)
  RETURNING 1
)
SELECT (SELECT count(*) FROM posts)::int AS posts, (SELECT count(*) FROM states)::int AS states`;

/**
 * Up to `$3` posts first seen before `$1` (older than every plan's retention) that no feed item references and
 * the engagement poller no longer polls (`$2`, now), oldest first on x_posts_first_seen_at_idx: posts recorded
 * but never stored in a feed (over a quota), and any a crash left behind. Locked like the items.
 */
export const PICK_ORPHAN_POSTS = `
SELECT x.id FROM x_posts x
 WHERE x.first_seen_at < $1::timestamptz
   AND NOT EXISTS (SELECT 1 FROM feed_items f WHERE f.x_post_id = x.id)
   AND NOT EXISTS (SELECT 1 FROM engagement_states s WHERE s.x_post_id = x.id AND s.poll_until > $2::timestamptz)
 ORDER BY x.first_seen_at
 LIMIT $3
   FOR UPDATE OF x SKIP LOCKED`;

/** The longest retention of any plan, in days: posts first seen before it are past every account's. */
export const LONGEST_RETENTION = `SELECT COALESCE(max(retention_days), 90)::int AS days FROM plans`;

/** Checkout accounts still `pending` (never paid) and untouched since `$1` (UNPAID_SINCE), oldest first, `$2` at most. */
export const STALE_PENDING_ACCOUNTS = `
SELECT id FROM users WHERE ${UNPAID_SINCE('users', '$1')} ORDER BY created_at, id LIMIT $2`;

/**
 * Resolved notices past their account's plan retention, one batch: history the account no longer sees in its feed
 * either. Their sends go with them (cascade); open notices stay whatever their age.
 */
export const DELETE_OLD_NOTICES = `
DELETE FROM notices WHERE id IN (
  SELECT n.id FROM notices n JOIN users u ON u.id = n.user_id JOIN plans p ON p.id = u.plan_id
   WHERE n.resolved_at < $1::timestamptz - make_interval(days => p.retention_days)
   LIMIT $2 FOR UPDATE OF n SKIP LOCKED)`;

import type pg from 'pg';
import type { RedisClient } from '@hashwatch/queues';

// Moves the watermark forward only (replicas may race; a late writer never takes it back).
const ADVANCE_WATERMARK = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;

// The new engagement-tracked detected posts since the watermark (microseconds since the epoch), at most
// about `limit` items: the cut is made at a detected_at value and every item of that value is taken, because
// one feed transaction's items share one detected_at. Each post gets (or extends) its engagement state: the
// fastest cadence of the accounts now tracking it, a window until 48 h after its latest detection, a poll
// at once, and a full refresh (null counts_updated_at: the new account's item needs the counts even when X's
// did not change). The full refresh recomputes cadence and window from the items, so this only has to bring
// new posts and new accounts in. An existing state changes only for a detection later than any it has seen
// (its window ends later) or a faster cadence: a replica whose watermark lagged re-reads items another
// replica already brought in, and must not make their posts due again in the same cycle (a second lookup).
// The cadence is the fastest among served accounts (active, unexpired subscription), as the full refresh
// computes it, so a re-read never brings back the cadence of an account that is no longer served.
const DISCOVER = `
WITH edge AS (
  SELECT max(detected_at) AS last
    FROM (SELECT f.detected_at
            FROM feed_items f
           WHERE f.engagement_tracked AND f.type <> 'engagement'
             AND f.detected_at > 'epoch'::timestamptz + $1::bigint * interval '1 microsecond'
             AND f.detected_at > $2::timestamptz - interval '48 hours'
           ORDER BY f.detected_at
           LIMIT $3) first_ones
), fresh AS (
  SELECT f.x_post_id, f.detected_at, u.engagement_refresh_seconds,
         (u.subscription_status = 'active' AND u.current_period_end > $2::timestamptz) AS served
    FROM feed_items f
    JOIN users u ON u.id = f.user_id
   WHERE f.engagement_tracked AND f.type <> 'engagement'
     AND f.detected_at > 'epoch'::timestamptz + $1::bigint * interval '1 microsecond'
     AND f.detected_at > $2::timestamptz - interval '48 hours'
     AND f.detected_at <= (SELECT last FROM edge)
), upserted AS (
  INSERT INTO engagement_states (x_post_id, interval_seconds, poll_until, next_poll_at)
  SELECT x_post_id,
         COALESCE(min(engagement_refresh_seconds) FILTER (WHERE served), min(engagement_refresh_seconds)),
         max(detected_at) + interval '48 hours', $2::timestamptz
    FROM fresh
   GROUP BY x_post_id
   ORDER BY x_post_id
  ON CONFLICT (x_post_id) DO UPDATE
     SET interval_seconds = LEAST(engagement_states.interval_seconds, EXCLUDED.interval_seconds),
         poll_until = GREATEST(engagement_states.poll_until, EXCLUDED.poll_until),
         next_poll_at = LEAST(engagement_states.next_poll_at, EXCLUDED.next_poll_at),
         counts_updated_at = NULL
   WHERE EXCLUDED.poll_until > engagement_states.poll_until
      OR EXCLUDED.interval_seconds < engagement_states.interval_seconds
  RETURNING 1
)
SELECT (SELECT count(*) FROM fresh)::int AS items,
       (SELECT count(*) FROM upserted)::int AS posts,
       (extract(epoch FROM (SELECT last FROM edge)) * 1000000)::bigint::text AS watermark`;

export interface DiscoveryResult {
  /** Engagement-tracked items read. */
  items: number;
  /** Engagement states created or extended. */
  posts: number;
}

/**
 * Brings newly detected engagement-tracked posts into polling. The feed clock hands out detected_at in
 * commit order (docs/decisions/feed-and-posts.md), so everything committed after the last run sits above one
 * watermark and nothing below it can still appear: a plain range read finds every new item exactly once.
 * The watermark lives in Redis; losing it only makes the next run re-read the last 48 hours, which the
 * upsert absorbs. Replicas may run this at once: the upsert is idempotent and the watermark only moves up.
 */
export async function discoverTrackedPosts(
  pool: pg.Pool,
  redis: RedisClient,
  keyPrefix: string,
  now: Date,
  options: { batchSize?: number; maxBatches?: number } = {},
): Promise<DiscoveryResult> {
  const key = `${keyPrefix}:engagement:discovered-until`;
  const batchSize = options.batchSize ?? 20_000;
  const result: DiscoveryResult = { items: 0, posts: 0 };
  for (let batch = 0; batch < (options.maxBatches ?? 50); batch += 1) {
    const watermark = (await redis.get(key)) ?? '0';
    const { rows } = await pool.query<{ items: number; posts: number; watermark: string | null }>(DISCOVER, [watermark, now, batchSize]);
    const row = rows[0];
    if (!row || row.watermark === null) break;
    result.items += row.items;
    result.posts += row.posts;
    await redis.eval(ADVANCE_WATERMARK, 1, key, row.watermark);
    if (row.items < batchSize) break;
  }
  return result;
}

import type pg from 'pg';
import type { RedisClient } from '@hashwatch/queues';

// One fingerprint per account of everything the projection of its items depends on besides X's counts:
// whether it is served now, its cadence, and every source's switches. A PATCH, a new or deleted source, a
// plan change or a subscription change alters it.
const FINGERPRINTS = `
SELECT u.id AS user_id,
       md5(concat_ws('|', u.subscription_status = 'active' AND u.current_period_end > $1::timestamptz, u.engagement_refresh_seconds,
                     (SELECT string_agg(concat_ws(',', s.label, s.status, s.track_engagement, s.track_likes, s.track_reposts, s.track_comments, s.created_at), ';' ORDER BY s.label, s.id)
                        FROM (SELECT t.id, '#' || t.hashtag_norm AS label, t.status, t.track_engagement, t.track_likes, t.track_reposts, t.track_comments, t.created_at
                                FROM tracks t WHERE t.user_id = u.id
                              UNION ALL
                              SELECT a.id, '@' || a.username_norm, a.status, a.track_engagement, a.track_likes, a.track_reposts, a.track_comments, a.created_at
                                FROM account_tracks a WHERE a.user_id = u.id) s))) AS fingerprint
  FROM users u
 WHERE EXISTS (SELECT 1 FROM feed_items f WHERE f.user_id = u.id AND f.engagement_tracked AND f.type <> 'engagement' AND f.detected_at > $1::timestamptz - interval '48 hours')`;

// The posts these accounts track now need a full refresh (a null counts_updated_at asks for one). A post whose
// served account now has a faster cadence is due one new interval after its last poll (next_poll_at less its
// interval), at once when that has passed: otherwise it would wait out the slower interval first (a cadence
// change must take effect within one period of the new cadence). LEAST ignores the null of no served account.
const MARK = `
UPDATE engagement_states s
   SET counts_updated_at = NULL,
       next_poll_at = LEAST(s.next_poll_at, s.next_poll_at - make_interval(secs => s.interval_seconds) + make_interval(secs => c.refresh_seconds))
  FROM (SELECT f.x_post_id,
               min(u.engagement_refresh_seconds) FILTER (WHERE u.subscription_status = 'active' AND u.current_period_end > $2::timestamptz) AS refresh_seconds
          FROM feed_items f JOIN users u ON u.id = f.user_id
         WHERE f.user_id = ANY ($1::text[]) AND f.engagement_tracked AND f.type <> 'engagement'
           AND f.detected_at > $2::timestamptz - interval '48 hours'
         GROUP BY f.x_post_id) c
 WHERE s.x_post_id = c.x_post_id
   AND (s.counts_updated_at IS NOT NULL OR c.refresh_seconds < s.interval_seconds)`;

/**
 * Finds the accounts whose sources, cadence or subscription changed since the last cycle (any replica's)
 * and asks for a full refresh of the posts they track. A refresh that finds a post's counts unchanged only
 * reschedules it; this is what still makes a PATCH take effect at the next refresh. The fingerprints live in
 * Redis; when they are lost every account counts as changed once, which costs one full refresh of everything.
 */
export async function markChangedAccounts(pool: pg.Pool, redis: RedisClient, keyPrefix: string, now: Date): Promise<number> {
  const key = `${keyPrefix}:engagement:account-fingerprints`;
  const { rows } = await pool.query<{ user_id: string; fingerprint: string }>(FINGERPRINTS, [now]);
  if (rows.length === 0) return 0;
  const known = await redis.hgetall(key);
  const changed = rows.filter((row) => known[row.user_id] !== row.fingerprint);
  if (changed.length === 0) return 0;
  await pool.query(MARK, [changed.map((row) => row.user_id), now]);
  // Only after the mark is committed: a crash in between marks again next time, which is harmless.
  await redis.hset(key, Object.fromEntries(changed.map((row) => [row.user_id, row.fingerprint])));
  return changed.length;
}

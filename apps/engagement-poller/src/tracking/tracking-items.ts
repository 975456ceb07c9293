/**
 * SQL for the items that track some posts right now, one row per account's feed item:
 *
 * - a detected post (`hashtag` / `account` item, never an `engagement` event) stored with
 *   `engagement_tracked` (its source tracked engagement when it was detected: switching it on later applies
 *   only to posts detected afterwards);
 * - inside its own window: detected less than 48 hours before `now`, whatever other accounts do;
 * - `served`: its account has an active, unexpired subscription (the scanner's rule); items of other accounts
 *   are neither refreshed nor alerted, but still keep the post's polling window open;
 * - `likes` / `reposts` / `comments`: the category switches of the item's source as they are now, so a PATCH
 *   takes effect at the next refresh. The source is the first of the item's `sources` (earliest-created
 *   first, as the scanner writes them; `hashtag` / `account` when `sources` is empty) that still has
 *   `track_engagement` on: the scanner copied its flags from the same one. A source deleted or switched off
 *   since detection leaves every category off, which freezes the item's counts and lists.
 *
 * `shown_likes` / `shown_reposts` / `shown_comments` are the switches the item itself holds (as of its last
 * refresh or sample): a category on now but not shown was just switched back on.
 *
 * `ids` and `now` are SQL expressions (placeholders) of types text[] and timestamptz.
 */
export function trackingItemsSql(ids: string, now: string): string {
  return `
SELECT f.id, f.user_id, f.x_post_id, f.url, f.hashtag, f.account, f.sources, f.detected_at,
       u.engagement_refresh_seconds AS refresh_seconds,
       (u.subscription_status = 'active' AND u.current_period_end > ${now}) AS served,
       COALESCE(src.track_likes, false) AS likes,
       COALESCE(src.track_reposts, false) AS reposts,
       COALESCE(src.track_comments, false) AS comments,
       f.track_likes AS shown_likes, f.track_reposts AS shown_reposts, f.track_comments AS shown_comments
  FROM feed_items f
  JOIN users u ON u.id = f.user_id
  LEFT JOIN LATERAL (
    SELECT s.track_likes, s.track_reposts, s.track_comments
      FROM (
        SELECT t.track_likes, t.track_reposts, t.track_comments, t.created_at, t.id,
               LEAST(array_position(f.sources, '#' || t.hashtag_norm), array_position(f.sources, '$' || t.hashtag_norm)) AS position
          FROM tracks t
         WHERE t.user_id = f.user_id AND t.track_engagement AND t.status = 'active'
           AND (t.hashtag_norm = lower(f.hashtag) OR '#' || t.hashtag_norm = ANY (f.sources) OR '$' || t.hashtag_norm = ANY (f.sources))
        UNION ALL
        SELECT a.track_likes, a.track_reposts, a.track_comments, a.created_at, a.id,
               array_position(f.sources, '@' || a.username_norm)
          FROM account_tracks a
         WHERE a.user_id = f.user_id AND a.track_engagement AND a.status = 'active'
           AND (a.username_norm = lower(f.account) OR '@' || a.username_norm = ANY (f.sources))
      ) s
     ORDER BY s.position NULLS LAST, s.created_at, s.id
     LIMIT 1
  ) src ON true
 WHERE f.x_post_id = ANY (${ids}) AND f.engagement_tracked AND f.type <> 'engagement'
   AND f.detected_at > ${now} - interval '48 hours'`;
}

/** One row of {@link trackingItemsSql}. */
export interface TrackingItemRow {
  id: string;
  user_id: string;
  x_post_id: string;
  url: string;
  hashtag: string | null;
  account: string | null;
  sources: string[] | null;
  detected_at: Date;
  refresh_seconds: number;
  served: boolean;
  likes: boolean;
  reposts: boolean;
  comments: boolean;
  shown_likes: boolean;
  shown_reposts: boolean;
  shown_comments: boolean;
}

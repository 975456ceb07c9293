import type pg from 'pg';

// Rows for the retention tests, written with SQL as the scanner and the notifier write them (the triggers of
// feed_items fill item_head and feed_item_sources). Test code only.

const DAY_MS = 86_400_000;

export interface SeedItem {
  userId: string;
  postId: string;
  /** Days before `now` the item was detected. */
  ageDays: number;
  sources?: string[];
}

/** A post as the scanner records it, first seen `ageDays` before `now`. */
export async function seedPost(pool: pg.Pool, id: string, now: Date, ageDays: number): Promise<void> {
  const seen = new Date(now.getTime() - ageDays * DAY_MS);
  await pool.query(
    `INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at, first_seen_at)
     VALUES ($1, '42', 'writer', 'Writer', 'about #btc', $2, $2) ON CONFLICT (id) DO NOTHING`,
    [id, seen],
  );
}

/** A feed item (and its post, if new); answers the item's id. */
export async function seedItem(pool: pg.Pool, now: Date, item: SeedItem): Promise<string> {
  await seedPost(pool, item.postId, now, item.ageDays);
  const detected = new Date(now.getTime() - item.ageDays * DAY_MS);
  const id = `post_${item.userId.slice(4)}_${item.postId}`;
  await pool.query(
    `INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, sources, x_post_id, author, author_name, text, url, posted_at, detected_at)
     VALUES ($1, $2, $3, 'hashtag', 'btc', $4, $5, 'writer', 'Writer', 'about #btc', 'https://x.com/writer/status/' || $5, $6, $6)`,
    [id, item.userId, `x:${item.postId}`, item.sources ?? ['#btc'], item.postId, detected],
  );
  return id;
}

/** `count` items of one account, all `ageDays` old, with posts `<prefix>0…`, in one statement. */
export async function seedItems(pool: pg.Pool, now: Date, userId: string, prefix: string, count: number, ageDays: number): Promise<void> {
  const detected = new Date(now.getTime() - ageDays * DAY_MS);
  await pool.query(
    `WITH posts AS (
       INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at, first_seen_at)
       SELECT $3 || n, '42', 'writer', 'Writer', 'about #btc', $4, $4 FROM generate_series(0, $2 - 1) AS n
       ON CONFLICT (id) DO NOTHING RETURNING id
     )
     INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, sources, x_post_id, author, author_name, text, url, posted_at, detected_at)
     SELECT 'post_' || substr($1, 5) || '_' || $3 || n, $1, 'x:' || $3 || n, 'hashtag', 'btc', ARRAY['#btc', '@writer'], $3 || n,
            'writer', 'Writer', 'about #btc', 'https://x.com/writer/status/' || $3 || n, $4, $4 - n * interval '1 millisecond'
       FROM generate_series(0, $2 - 1) AS n`,
    [userId, count, prefix, detected],
  );
}

/** A webhook channel of the account; answers its id. */
export async function seedChannel(pool: pg.Pool, userId: string): Promise<string> {
  const id = `wh_${userId.slice(4)}`;
  await pool.query(`INSERT INTO notification_channels (id, user_id, kind, url) VALUES ($1, $2, 'webhook', 'https://example.com/hook')`, [id, userId]);
  return id;
}

export async function seedDelivery(pool: pg.Pool, item: { userId: string; channelId: string; feedItemId: string; status: 'pending' | 'delivered' | 'failed' }): Promise<string> {
  const id = `dlv_${item.feedItemId}`;
  await pool.query(
    `INSERT INTO deliveries (id, user_id, channel_id, feed_item_id, message_id, status) VALUES ($1, $2, $3, $4, $1, $5::delivery_status)`,
    [id, item.userId, item.channelId, item.feedItemId, item.status],
  );
  return id;
}

export async function seedEngagementState(pool: pg.Pool, postId: string, pollUntil: Date): Promise<void> {
  await pool.query(
    `INSERT INTO engagement_states (x_post_id, interval_seconds, poll_until, next_poll_at) VALUES ($1, 60, $2, $2)`,
    [postId, pollUntil],
  );
}

/** Counts of what the sweep deletes, for one account (null: every account). */
export async function countRows(pool: pg.Pool, userId: string | null = null) {
  const { rows } = await pool.query<{ items: number; sources: number; deliveries: number; posts: number; states: number }>(
    `SELECT (SELECT count(*) FROM feed_items WHERE $1::text IS NULL OR user_id = $1)::int AS items,
            (SELECT count(*) FROM feed_item_sources WHERE $1::text IS NULL OR user_id = $1)::int AS sources,
            (SELECT count(*) FROM deliveries WHERE $1::text IS NULL OR user_id = $1)::int AS deliveries,
            (SELECT count(*) FROM x_posts)::int AS posts,
            (SELECT count(*) FROM engagement_states)::int AS states`,
    [userId],
  );
  return rows[0];
}

import type pg from 'pg';
import type { PrismaClient } from '@hashwatch/db';

/**
 * Feed items of the account, the n-th detected `n` ms after `detectedAt` and posted `delays[n]` ms before it (null:
 * an engagement item, without `posted_at`). Answers their ids.
 */
export async function latencyItems(prisma: PrismaClient, userId: string, tag: string, detectedAt: Date, delays: (number | null)[]): Promise<string[]> {
  const ids = delays.map((_, n) => `post_${tag}${n}${userId.slice(-8)}`);
  await prisma.feedItem.createMany({
    data: delays.map((delay, n) => ({
      id: ids[n]!, userId, dedupeKey: `${tag}-${n}`, type: delay === null ? 'engagement' : 'hashtag', xPostId: `7${n}`, author: '@alice',
      authorName: 'Alice', text: 'gm', url: 'https://x.com/alice/status/1', sources: ['#btc'], detectedAt: new Date(detectedAt.getTime() + n),
      postedAt: delay === null ? null : new Date(detectedAt.getTime() + n - delay),
    })),
  });
  return ids;
}

/** A delivery of the item to the channel, delivered `afterMs` after the item's detection (null: not delivered). */
export async function latencyDelivery(pool: pg.Pool, userId: string, channelId: string, feedItemId: string, status: string, afterMs: number | null): Promise<void> {
  await pool.query(
    `INSERT INTO deliveries (id, user_id, channel_id, feed_item_id, message_id, status, delivered_at, created_at)
     SELECT 'dlv_' || md5($2 || $3), $1, $2, f.id, 'msg_' || md5($2 || $3), $4::delivery_status,
            f.detected_at + $5 * interval '1 millisecond', f.detected_at
       FROM feed_items f WHERE f.id = $3`,
    [userId, channelId, feedItemId, status, afterMs],
  );
}

import type pg from 'pg';
import type { EngagementKind, FeedItemType } from '@hashwatch/db';
import { newId } from '@hashwatch/secrets';
import { nextDetectedAt } from './feed-clock';

/** A feed item to store for one account. Engagement counts and samples start empty; the poller fills them. */
export interface NewFeedItem {
  userId: string;
  /** `x:<post id>` for a detected post, `e:<post id>:<kind>:<engager id>` for an engagement event. */
  dedupeKey: string;
  type: FeedItemType;
  /** First matching hashtag, without `#`; null for account posts. */
  hashtag: string | null;
  /** First matching account, without `@`; null for hashtag posts. */
  account: string | null;
  /** Every source of the account that matched, prefixed (`#btc`, `@alice`); stored lower-case. */
  sources: string[];
  xPostId: string;
  authorId: string | null;
  /** The author's handle (the engaging account's for engagement items); stored with a leading `@`. */
  author: string;
  authorName: string;
  text: string;
  url: string;
  /** Null for retweet and like events. */
  postedAt: Date | null;
  /** Engagement items only: the `post_` id of the engaged feed item. */
  parentId?: string | null;
  /** Engagement items only. */
  kind?: EngagementKind | null;
  /** The matching source had engagement tracking on at detection. Default false. */
  engagementTracked?: boolean;
  /** Default true, like the three category flags of a source. */
  trackLikes?: boolean;
  trackReposts?: boolean;
  trackComments?: boolean;
}

/** A stored feed item: the values as stored, with its `post_` id and the transaction's detected_at. */
export interface FeedItemRow extends Required<NewFeedItem> {
  id: string;
  detectedAt: Date;
}

// One statement for the whole batch: unnest turns the parallel arrays back into rows. `sources` travels as
// JSON text because unnest flattens an array of arrays instead of yielding one array per row.
const INSERT_FEED_ITEMS = `
INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, account, sources, x_post_id, author_id, author,
                        author_name, text, url, posted_at, detected_at, parent_id, kind, engagement_tracked,
                        track_likes, track_reposts, track_comments)
SELECT r.id, r.user_id, r.dedupe_key, r.type, r.hashtag, r.account,
       ARRAY(SELECT jsonb_array_elements_text(r.sources::jsonb)), r.x_post_id, r.author_id, r.author,
       r.author_name, r.text, r.url, r.posted_at, $21::timestamptz, r.parent_id, r.kind, r.engagement_tracked,
       r.track_likes, r.track_reposts, r.track_comments
  FROM unnest($1::text[], $2::text[], $3::text[], $4::feed_item_type[], $5::text[], $6::text[], $7::text[],
              $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::timestamptz[],
              $15::text[], $16::engagement_kind[], $17::boolean[], $18::boolean[], $19::boolean[], $20::boolean[])
    AS r(id, user_id, dedupe_key, type, hashtag, account, sources, x_post_id, author_id, author, author_name,
         text, url, posted_at, parent_id, kind, engagement_tracked, track_likes, track_reposts, track_comments)
ON CONFLICT (user_id, dedupe_key) DO NOTHING
RETURNING id`;

function withAt(handle: string): string {
  return handle.startsWith('@') ? handle : `@${handle}`;
}

function keyOf(userId: string, dedupeKey: string): string {
  return `${userId}\u0000${dedupeKey}`;
}

/**
 * Stores a batch of feed items in one set-based INSERT, inside the caller's transaction: each gets a new
 * `post_` id, and all get the same detected_at from {@link nextDetectedAt}, which holds the feed clock
 * until the caller commits. So call it as the last write of the transaction and commit right after.
 *
 * An item whose (userId, dedupeKey) is already stored, or repeated in the batch, is skipped: `inserted`
 * holds only the rows this call stored, in input order, which are the ones to alert on. An engagement
 * item without `parentId` and `kind` throws before anything is written.
 */
export async function insertFeedItems(client: pg.PoolClient, items: readonly NewFeedItem[]): Promise<{ inserted: FeedItemRow[] }> {
  const seen = new Set<string>();
  const rows: Omit<FeedItemRow, 'detectedAt'>[] = [];
  for (const item of items) {
    const key = keyOf(item.userId, item.dedupeKey);
    if (seen.has(key)) continue;
    if (item.type === 'engagement' && (!item.parentId || !item.kind)) {
      throw new Error(`feed item ${item.dedupeKey}: an engagement item needs parentId and kind`);
    }
    seen.add(key);
    rows.push({
      ...item,
      id: newId('post'),
      author: withAt(item.author),
      sources: item.sources.map((source) => source.toLowerCase()),
      parentId: item.parentId ?? null,
      kind: item.kind ?? null,
      engagementTracked: item.engagementTracked ?? false,
      trackLikes: item.trackLikes ?? true,
      trackReposts: item.trackReposts ?? true,
      trackComments: item.trackComments ?? true,
    });
  }
  if (rows.length === 0) return { inserted: [] };

  const detectedAt = await nextDetectedAt(client);
  const column = <T>(pick: (row: (typeof rows)[number]) => T): T[] => rows.map(pick);
  const { rows: stored } = await client.query<{ id: string }>(INSERT_FEED_ITEMS, [
    column((r) => r.id),
    column((r) => r.userId),
    column((r) => r.dedupeKey),
    column((r) => r.type),
    column((r) => r.hashtag),
    column((r) => r.account),
    column((r) => JSON.stringify(r.sources)),
    column((r) => r.xPostId),
    column((r) => r.authorId),
    column((r) => r.author),
    column((r) => r.authorName),
    column((r) => r.text),
    column((r) => r.url),
    column((r) => r.postedAt?.toISOString() ?? null),
    column((r) => r.parentId),
    column((r) => r.kind),
    column((r) => r.engagementTracked),
    column((r) => r.trackLikes),
    column((r) => r.trackReposts),
    column((r) => r.trackComments),
    detectedAt.toISOString(),
  ]);
  const storedIds = new Set(stored.map((row) => row.id));
  const inserted = rows.filter((row) => storedIds.has(row.id)).map((row) => ({ ...row, detectedAt }));
  return { inserted };
}

import type pg from 'pg';
import type { CursorScope, PostCursor } from './post-cursor';
import type { ListPostsQuery, PostBody, PostListBody } from './posts.schema';

interface FeedRow {
  id: string;
  type: PostBody['type'];
  hashtag: string | null;
  account: string | null;
  sources: string[] | null;
  author: string;
  author_name: string;
  text: string;
  url: string;
  posted_at_iso: string | null;
  detected_at_iso: string;
  parent_id: string | null;
  kind: NonNullable<PostBody['kind']> | null;
  engagement_tracked: boolean;
  retweet_count: number;
  like_count: number;
  reply_count: number;
  retweeters: string[] | null;
  likers: string[] | null;
  repliers: string[] | null;
  engagement_updated_at_iso: string;
}

// Timestamps leave PostgreSQL already in the API's format (CONTRACT section 4: ISO 8601 UTC with
// milliseconds): parsing three Dates per row and printing them again was a third of the handler's CPU
// (bench/posts-feed.ts). The _iso aliases keep ORDER BY on the indexed columns.
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COLUMNS = `id, type, hashtag, account, sources, author, author_name, text, url, ${iso('posted_at')} AS posted_at_iso,
  ${iso('detected_at')} AS detected_at_iso, parent_id, kind, engagement_tracked, retweet_count, like_count, reply_count,
  retweeters, likers, repliers, ${iso('COALESCE(engagement_updated_at, detected_at)')} AS engagement_updated_at_iso`;

function toPost(row: FeedRow): PostBody {
  const post: PostBody = {
    id: row.id,
    type: row.type,
    hashtag: row.hashtag,
    account: row.account,
    sources: row.sources ?? [],
    author: row.author,
    author_name: row.author_name,
    text: row.text,
    url: row.url,
    posted_at: row.posted_at_iso,
    detected_at: row.detected_at_iso,
    // Until the first refresh the counts are those stored at detection, so updated_at is detected_at.
    engagement:
      row.engagement_tracked && row.type !== 'engagement'
        ? {
            retweet_count: row.retweet_count,
            like_count: row.like_count,
            reply_count: row.reply_count,
            retweeters: row.retweeters ?? [],
            likers: row.likers ?? [],
            repliers: row.repliers ?? [],
            updated_at: row.engagement_updated_at_iso,
          }
        : null,
  };
  if (row.type === 'engagement') {
    // insertFeedItems refuses an engagement item without both.
    post.parent_id = row.parent_id as string;
    post.kind = row.kind as NonNullable<PostBody['kind']>;
  }
  return post;
}

/**
 * One page of the account's feed, newest first by (detected_at, id), by keyset on the index
 * feed_items(user_id, detected_at DESC, id DESC): a page 900,000 items deep costs what the first does.
 * One more row than asked tells whether a next page exists.
 */
export async function listPosts(pool: pg.Pool, cursors: PostCursor, userId: string, query: ListPostsQuery): Promise<PostListBody> {
  const scope: CursorScope = {
    userId,
    hashtag: query.hashtag?.toLowerCase() ?? null,
    account: query.account?.toLowerCase() ?? null,
    type: query.type ?? null,
    sinceMs: query.since?.getTime() ?? null,
  };
  const after = query.cursor === undefined ? null : cursors.decode(query.cursor, scope);

  const values: unknown[] = [userId];
  const where = ['user_id = $1'];
  const param = (value: unknown) => `$${values.push(value)}`;
  if (query.since) where.push(`detected_at > ${param(query.since)}`);
  if (after) where.push(`(detected_at, id) < (${param(new Date(after.detectedAtMs))}, ${param(after.id)})`);
  if (scope.type) where.push(`type = ${param(scope.type)}::feed_item_type`);
  // Sources are stored lower-case and prefixed; @> lets the planner use the GIN index on sources when the
  // value is rare. Those shapes are planned per request, with the value in hand: a generic plan cannot
  // tell a tag on every item from a tag on one.
  if (scope.hashtag) where.push(`sources @> ARRAY[${param(`#${scope.hashtag}`)}::text]`);
  if (scope.account) where.push(`sources @> ARRAY[${param(`@${scope.account}`)}::text]`);
  const text = `SELECT ${COLUMNS} FROM feed_items WHERE ${where.join(' AND ')} ORDER BY detected_at DESC, id DESC LIMIT ${param(query.limit + 1)}`;
  // The other shapes (at most 8) are prepared once per connection: planning costs the database more
  // than running the keyset scan.
  const name = scope.hashtag || scope.account ? undefined : `posts-list-${query.since ? 's' : ''}${after ? 'c' : ''}${scope.type ? 't' : ''}`;
  const { rows } = await pool.query<FeedRow>({ text, values, ...(name ? { name } : {}) });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    data: page.map(toPost),
    next_cursor: rows.length > query.limit && last ? cursors.encode({ detectedAtMs: Date.parse(last.detected_at_iso), id: last.id }, scope) : null,
  };
}

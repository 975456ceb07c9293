import type pg from 'pg';
import type { CursorScope, PostCursor } from './post-cursor';
import { JsonText } from '../../http/json-text';
import type { ListPostsQuery } from './posts.schema';

interface PageRow {
  item: string;
  id: string;
  detected_at_iso: string;
}

// Timestamps in the API's format (CONTRACT section 4: ISO 8601 UTC with milliseconds).
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const POST_FIELDS = `f.id, f.type, f.hashtag, f.account, COALESCE(f.sources, '{}') AS sources, f.author, f.author_name, f.text, f.url,
  ${iso('f.posted_at')} AS posted_at, ${iso('f.detected_at')} AS detected_at`;
// Until the first refresh the counts are those stored at detection, so updated_at is detected_at.
const ENGAGEMENT = `CASE WHEN f.engagement_tracked THEN (SELECT to_json(e) FROM (SELECT f.retweet_count, f.like_count, f.reply_count,
  COALESCE(f.retweeters, '{}') AS retweeters, COALESCE(f.likers, '{}') AS likers, COALESCE(f.repliers, '{}') AS repliers,
  ${iso('COALESCE(f.engagement_updated_at, f.detected_at)')} AS updated_at) e) END`;
/**
 * Each item as the JSON of postSchema, field for field, built by PostgreSQL: decoding 21 columns (three of
 * them arrays) into objects and serialising them again was most of the handler's own CPU
 * (bench/posts-feed.ts). Engagement items carry parent_id and kind and a null engagement; others have
 * neither field.
 */
const ITEM = `CASE WHEN f.type = 'engagement'
  THEN (SELECT to_json(i) FROM (SELECT ${POST_FIELDS}, NULL::json AS engagement, f.parent_id, f.kind) i)
  ELSE (SELECT to_json(i) FROM (SELECT ${POST_FIELDS}, ${ENGAGEMENT} AS engagement) i)
  END::text AS item, f.id, ${iso('f.detected_at')} AS detected_at_iso`;

/**
 * One page of the account's feed, newest first by (detected_at, id), by keyset on the index
 * feed_items(user_id, detected_at DESC, id DESC): a page 900,000 items deep costs what the first does.
 * One more row than asked tells whether a next page exists.
 */
export async function listPosts(pool: pg.Pool, cursors: PostCursor, userId: string, query: ListPostsQuery): Promise<JsonText> {
  const scope: CursorScope = {
    userId,
    hashtag: query.hashtag?.toLowerCase() ?? null,
    account: query.account?.toLowerCase() ?? null,
    type: query.type ?? null,
    sinceMs: query.since?.getTime() ?? null,
  };
  const after = query.cursor === undefined ? null : cursors.decode(query.cursor, scope);

  const values: unknown[] = [userId];
  const where = ['f.user_id = $1'];
  const param = (value: unknown) => `$${values.push(value)}`;
  if (query.since) where.push(`f.detected_at > ${param(query.since)}`);
  if (after) where.push(`(f.detected_at, f.id) < (${param(new Date(after.detectedAtMs))}, ${param(after.id)})`);
  if (scope.type) where.push(`f.type = ${param(scope.type)}::feed_item_type`);
  // Sources are stored lower-case and prefixed; @> lets the planner use the GIN index on sources when the
  // value is rare. Those shapes are planned per request, with the value in hand: a generic plan cannot
  // tell a tag on every item from a tag on one.
  if (scope.hashtag) where.push(`f.sources @> ARRAY[${param(`#${scope.hashtag}`)}::text]`);
  if (scope.account) where.push(`f.sources @> ARRAY[${param(`@${scope.account}`)}::text]`);
  const text = `SELECT ${ITEM} FROM feed_items f WHERE ${where.join(' AND ')} ORDER BY f.detected_at DESC, f.id DESC LIMIT ${param(query.limit + 1)}`;
  // The other shapes (at most 8) are prepared once per connection: planning costs the database more
  // than running the keyset scan.
  const name = scope.hashtag || scope.account ? undefined : `posts-page-${query.since ? 's' : ''}${after ? 'c' : ''}${scope.type ? 't' : ''}`;
  const { rows } = await pool.query<PageRow>({ text, values, ...(name ? { name } : {}) });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor = rows.length > query.limit && last ? cursors.encode({ detectedAtMs: Date.parse(last.detected_at_iso), id: last.id }, scope) : null;
  return new JsonText(`{"data":[${page.map((row) => row.item).join(',')}],"next_cursor":${nextCursor === null ? 'null' : JSON.stringify(nextCursor)}}`);
}

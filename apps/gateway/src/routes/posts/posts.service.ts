import type pg from 'pg';
import type { CursorScope, PostCursor } from './post-cursor';
import { JsonText } from '../../http/json-text';
import { DEFAULT_LIMIT, MAX_LIMIT, type ListPostsQuery } from './posts.schema';

interface PageRow {
  item: string;
  id: string;
}

// Timestamps leave PostgreSQL as JSON timestamps without a zone, read in UTC, cut to the millisecond and one
// microsecond added, so that their fraction always has six digits ("2026-11-22T01:24:59.120001"):
// to_char's formatting cost the database as much as the rest of the page (bench/posts-feed.ts), and with a
// fixed width the API's format is one plain replace in apiTimestamps below.
const utc = (column: string) => `date_trunc('milliseconds', ${column} AT TIME ZONE 'UTC') + interval '1 microsecond'`;
const POST_FIELDS = `f.id, f.type, f.hashtag, f.account, COALESCE(f.sources, '{}') AS sources, f.author, f.author_name, f.text, f.url,
  ${utc('f.posted_at')} AS posted_at, ${utc('f.detected_at')} AS detected_at`;
// Until the first refresh the counts are those stored at detection, so updated_at is detected_at.
const ENGAGEMENT = `CASE WHEN f.engagement_tracked THEN (SELECT to_json(e) FROM (SELECT f.retweet_count, f.like_count, f.reply_count,
  COALESCE(f.retweeters, '{}') AS retweeters, COALESCE(f.likers, '{}') AS likers, COALESCE(f.repliers, '{}') AS repliers,
  ${utc('COALESCE(f.engagement_updated_at, f.detected_at)')} AS updated_at) e) END`;
/**
 * Each item as the JSON of postSchema, field for field, built by PostgreSQL: decoding 21 columns (three of
 * them arrays) into objects and serialising them again was most of the handler's own CPU
 * (bench/posts-feed.ts). Engagement items carry parent_id and kind and a null engagement; others have
 * neither field.
 */
const ITEM = `CASE WHEN f.type = 'engagement'
  THEN (SELECT to_json(i) FROM (SELECT ${POST_FIELDS}, NULL::json AS engagement, f.parent_id, f.kind) i)
  ELSE (SELECT to_json(i) FROM (SELECT ${POST_FIELDS}, ${ENGAGEMENT} AS engagement) i)
  END::text AS item, f.id`;

/**
 * The items' timestamps in the API's format (CONTRACT section 4: ISO 8601 UTC with milliseconds):
 * "2026-11-22T01:24:59.120001" becomes "2026-11-22T01:24:59.120Z". Only the item's timestamp keys
 * (posted_at, detected_at, updated_at: no other key ends in _at) followed by a value can match: inside a
 * JSON string every quote is escaped, so a post's text never holds `_at":"`.
 */
const PG_TIMESTAMP = /(_at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\d{3}"/g;
export function apiTimestamps(itemsJson: string): string {
  return itemsJson.replace(PG_TIMESTAMP, '$1Z"');
}

// Page sizes prepared per connection: the default, the maximum and the round sizes clients pick.
const PREPARED_LIMITS = new Set([10, DEFAULT_LIMIT, 25, 50, MAX_LIMIT]);

const DETECTED_AT = /"detected_at":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\d{3}"/;
function detectedAtMs(itemJson: string): number {
  const seconds = DETECTED_AT.exec(itemJson)?.[1];
  if (seconds === undefined) throw new Error('a feed item without detected_at');
  return Date.parse(`${seconds}Z`);
}

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
  // The limit is written into the text (zod made it an integer of 1..100): with LIMIT $n PostgreSQL's generic
  // plan assumes a tenth of the table, loses to a custom plan, and so plans every execution again.
  const text = `SELECT ${ITEM} FROM feed_items f WHERE ${where.join(' AND ')} ORDER BY f.detected_at DESC, f.id DESC LIMIT ${Math.trunc(query.limit) + 1}`;
  // The other shapes (at most 8), at the usual page sizes, are prepared once per connection, so PostgreSQL
  // reuses one plan instead of planning each request (planning cost it more than the keyset scan). Other
  // sizes are planned per request, which bounds the statements each connection keeps to 8 x 5.
  const prepared = !scope.hashtag && !scope.account && PREPARED_LIMITS.has(query.limit);
  const name = prepared ? `posts-page-${query.limit}-${query.since ? 's' : ''}${after ? 'c' : ''}${scope.type ? 't' : ''}` : undefined;
  const { rows } = await pool.query<PageRow>({ text, values, ...(name ? { name } : {}) });
  const page = rows.slice(0, query.limit);
  const last = rows.length > query.limit ? page.at(-1) : undefined;
  const nextCursor = last ? cursors.encode({ detectedAtMs: detectedAtMs(last.item), id: last.id }, scope) : null;
  const items = apiTimestamps(page.map((row) => row.item).join(','));
  return new JsonText(`{"data":[${items}],"next_cursor":${nextCursor === null ? 'null' : JSON.stringify(nextCursor)}}`);
}

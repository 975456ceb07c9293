import type pg from 'pg';
import type { CursorScope, PostCursor } from './post-cursor';
import { JsonText } from '../../http/json-text';
import { DEFAULT_LIMIT, MAX_LIMIT, type ListPostsQuery } from './posts.schema';

interface PageRow {
  item: string;
  id: string;
}

const API_TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
// The engagement object: until the first refresh the counts are those stored at detection, so updated_at is
// detected_at.
const ENGAGEMENT = `'{"retweet_count":' || f.retweet_count::text || ',"like_count":' || f.like_count::text
  || ',"reply_count":' || f.reply_count::text || ',"retweeters":' || COALESCE(array_to_json(f.retweeters)::text, '[]')
  || ',"likers":' || COALESCE(array_to_json(f.likers)::text, '[]') || ',"repliers":' || COALESCE(array_to_json(f.repliers)::text, '[]')
  || ',"updated_at":"' || to_char(COALESCE(f.engagement_updated_at, f.detected_at) AT TIME ZONE 'UTC', ${API_TIMESTAMP}) || '"}'`;
/**
 * Each item as the JSON of postSchema, field for field. `item_head` holds every field but `engagement`, written
 * with the item (prisma/migrations/20261125120000_feed_item_head); only the engagement object, which every refresh
 * changes, is built here, and only for the engagement-tracked items. Engagement items carry parent_id and kind
 * and a null engagement; others have neither field.
 */
const ITEM = `f.item_head || CASE WHEN f.engagement_tracked AND f.type <> 'engagement'
  THEN ',"engagement":' || ${ENGAGEMENT} || '}' ELSE ',"engagement":null}' END AS item, f.id`;

// Page sizes prepared per connection: the default, the maximum and the round sizes clients pick.
const PREPARED_LIMITS = new Set([10, DEFAULT_LIMIT, 25, 50, MAX_LIMIT]);

// Inside a JSON string every quote is escaped, so only the item's own detected_at key can match.
const DETECTED_AT = /"detected_at":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"/;
function detectedAtMs(itemJson: string): number {
  const instant = DETECTED_AT.exec(itemJson)?.[1];
  if (instant === undefined) throw new Error('a feed item without detected_at');
  return Date.parse(instant);
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
  const items = page.map((row) => row.item).join(',');
  return new JsonText(`{"data":[${items}],"next_cursor":${nextCursor === null ? 'null' : JSON.stringify(nextCursor)}}`);
}

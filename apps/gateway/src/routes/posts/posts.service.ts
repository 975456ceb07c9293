import type pg from 'pg';
import { JsonText } from '../../http/json-text';
import { keyLookupSql, type KeyRow } from '../../middleware/authenticate';
import type { CursorScope, FeedPosition, PostCursor } from './post-cursor';
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

function scopeOf(userId: string, query: ListPostsQuery): CursorScope {
  return {
    userId,
    hashtag: query.hashtag?.toLowerCase() ?? null,
    account: query.account?.toLowerCase() ?? null,
    type: query.type ?? null,
    sinceMs: query.since?.getTime() ?? null,
  };
}

/**
 * The page's SELECT for the account `user` (an SQL expression: a parameter, or a column of an enclosing
 * statement), newest first by (detected_at, id), by keyset on the index feed_items(user_id, detected_at DESC,
 * id DESC): a page 900,000 items deep costs what the first does. One more row than asked tells whether a next
 * page exists. Its parameters are appended to `values`; `columns` adds to the item and id; `shape` names
 * the statement when it is worth preparing.
 */
function pageSelect(
  user: string,
  values: unknown[],
  query: ListPostsQuery,
  after: FeedPosition | null,
  columns = '',
): { sql: string; shape: string | undefined } {
  const where = [`f.user_id = ${user}`];
  const param = (value: unknown) => `$${values.push(value)}`;
  const hashtag = query.hashtag?.toLowerCase();
  const account = query.account?.toLowerCase();
  if (query.since) where.push(`f.detected_at > ${param(query.since)}`);
  if (after) where.push(`(f.detected_at, f.id) < (${param(new Date(after.detectedAtMs))}, ${param(after.id)})`);
  if (query.type) where.push(`f.type = ${param(query.type)}::feed_item_type`);
  // Sources are stored lower-case and prefixed; @> lets the planner use the GIN index on sources when the
  // value is rare. Those shapes are planned per request, with the value in hand: a generic plan cannot
  // tell a tag on every item from a tag on one.
  if (hashtag) where.push(`f.sources @> ARRAY[${param(`#${hashtag}`)}::text]`);
  if (account) where.push(`f.sources @> ARRAY[${param(`@${account}`)}::text]`);
  // The limit is written into the text (zod made it an integer of 1..100): with LIMIT $n PostgreSQL's generic
  // plan assumes a tenth of the table, loses to a custom plan, and so plans every execution again.
  const sql = `SELECT ${ITEM}${columns} FROM feed_items f WHERE ${where.join(' AND ')} ORDER BY f.detected_at DESC, f.id DESC LIMIT ${Math.trunc(query.limit) + 1}`;
  // The other shapes (at most 8), at the usual page sizes, are prepared once per connection, so PostgreSQL
  // reuses one plan instead of planning each request (planning cost it more than the keyset scan). Other
  // sizes are planned per request, which bounds the statements each connection keeps to 8 x 5 per kind.
  const prepared = !hashtag && !account && PREPARED_LIMITS.has(query.limit);
  const shape = prepared ? `${query.limit}-${query.since ? 's' : ''}${after ? 'c' : ''}${query.type ? 't' : ''}` : undefined;
  return { sql, shape };
}

/** The answer's body: the first `limit` rows, and a cursor after the last of them when one more row came. */
function pageBody(rows: readonly PageRow[], limit: number, cursors: PostCursor, scope: CursorScope): JsonText {
  const page = rows.slice(0, limit);
  const last = rows.length > limit ? page.at(-1) : undefined;
  const nextCursor = last ? cursors.encode({ detectedAtMs: detectedAtMs(last.item), id: last.id }, scope) : null;
  const items = page.map((row) => row.item).join(',');
  return new JsonText(`{"data":[${items}],"next_cursor":${nextCursor === null ? 'null' : JSON.stringify(nextCursor)}}`);
}

/** One page of the account's feed (see pageSelect), for a caller already authenticated. */
export async function listPosts(pool: pg.Pool, cursors: PostCursor, userId: string, query: ListPostsQuery): Promise<JsonText> {
  const scope = scopeOf(userId, query);
  const after = query.cursor === undefined ? null : cursors.decode(query.cursor, scope);
  const values: unknown[] = [userId];
  const { sql, shape } = pageSelect('$1', values, query, after);
  const { rows } = await pool.query<PageRow>({ text: sql, values, ...(shape ? { name: `posts-page-${shape}` } : {}) });
  return pageBody(rows, query.limit, cursors, scope);
}

/** A page read together with the key that asks for it ({@link readPageWithKey}). */
export interface KeyedPage {
  key: KeyRow;
  /** The answer, once the caller is admitted; throws 400 for a cursor not signed for this account and query. */
  body(): JsonText;
}

type KeyedPageRow = KeyRow & { item: string | null; id: string | null };

/**
 * The key lookup of authentication and the page in one statement: one round trip to PostgreSQL instead of
 * two. The page is read for the key's own account only (its user_id comes from the key's row, never from the
 * request). `after` is the position the request's cursor claims, unverified: it only chooses where in that
 * account's feed the page starts, and body() checks the cursor's MAC, with the account now known, before
 * anything is answered. Undefined: no such key, or a revoked one.
 */
export async function readPageWithKey(
  pool: pg.Pool,
  cursors: PostCursor,
  keyHash: Uint8Array,
  query: ListPostsQuery,
  after: FeedPosition | null,
): Promise<KeyedPage | undefined> {
  const values: unknown[] = [keyHash];
  const { sql, shape } = pageSelect('k.user_id', values, query, after, ', f.detected_at');
  // The outer ORDER BY keeps the page's order, which a join does not promise; it sorts at most 101 rows.
  const text = `SELECT k.*, p.item, p.id FROM (${keyLookupSql('$1')}) k
    LEFT JOIN LATERAL (${sql}) p ON true ORDER BY p.detected_at DESC, p.id DESC`;
  const { rows } = await pool.query<KeyedPageRow>({ text, values, ...(shape ? { name: `posts-key-page-${shape}` } : {}) });
  const first = rows[0];
  if (!first) return undefined;
  const key: KeyRow = {
    key_id: first.key_id,
    user_id: first.user_id,
    rate_limit_per_minute: first.rate_limit_per_minute,
    subscription_status: first.subscription_status,
    period_end_ms: first.period_end_ms,
  };
  return {
    key,
    body() {
      const scope = scopeOf(key.user_id, query);
      if (query.cursor !== undefined) cursors.decode(query.cursor, scope);
      // A key with an empty page still gives one row, with a null item.
      const page = first.id === null ? [] : (rows as PageRow[]);
      return pageBody(page, query.limit, cursors, scope);
    },
  };
}

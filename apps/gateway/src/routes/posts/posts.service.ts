import type pg from 'pg';
import { statementName } from '@hashwatch/db';
import { itemJsonSql } from '@hashwatch/feed';
import { JsonText } from '../../http/json-text';
import { keyLookupSql, type CallerRow } from '../../middleware/authenticate';
import type { CursorScope, FeedPosition, PostCursor } from './post-cursor';
import { DEFAULT_LIMIT, MAX_LIMIT, type ListPostsQuery } from './posts.schema';

/** A page as PostgreSQL hands it over: one row, whatever the page size. */
interface PageRow {
  /** The page's items as JSON, comma-separated, newest first; null for an empty page. */
  items: string | null;
  /** Rows read: one more than the page size means a next page exists. */
  n: number;
  /** The page's last item (its id and detected_at in Unix ms), when a next page exists. */
  last_id: string | null;
  last_at_ms: string | null;
}

const API_TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
// The engagement object: until the first refresh the counts are those stored at detection, so updated_at is
// detected_at.
const ENGAGEMENT = `'{"retweet_count":' || f.retweet_count::text || ',"like_count":' || f.like_count::text
  || ',"reply_count":' || f.reply_count::text || ',"retweeters":' || COALESCE(array_to_json(f.retweeters)::text, '[]')
  || ',"likers":' || COALESCE(array_to_json(f.likers)::text, '[]') || ',"repliers":' || COALESCE(array_to_json(f.repliers)::text, '[]')
  || ',"updated_at":"' || to_char(COALESCE(f.engagement_updated_at, f.detected_at) AT TIME ZONE 'UTC', ${API_TIMESTAMP}) || '"}'`;
/**
 * Each item as the JSON of postSchema, field for field. `item_head` and `item_extra` hold every field but
 * `engagement`, written with the item (prisma/migrations/20261125120000_feed_item_head, 20261128100000_post_content); only the engagement object, which every refresh
 * changes, is built here, and only for the engagement-tracked items. Engagement items carry parent_id and kind
 * and a null engagement; others have neither field.
 */
// matched_by is written here: account items stored before it was kept were all by their author.
export const ITEM = `${itemJsonSql('f')} || ',"matched_by":' || CASE WHEN f.type = 'account' THEN '"' || COALESCE(f.matched_by, 'author') || '"' ELSE 'null' END
  || CASE WHEN f.engagement_tracked AND f.type <> 'engagement'
  THEN ',"engagement":' || ${ENGAGEMENT} || '}' ELSE ',"engagement":null}' END`;

// Page sizes prepared per connection: the default, the maximum and the round sizes clients pick.
const PREPARED_LIMITS = new Set([10, DEFAULT_LIMIT, 25, 50, MAX_LIMIT]);

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
 * The page of the account `user` (an SQL expression: a parameter, or a column of an enclosing statement) as one
 * row ({@link PageRow}), newest first by (detected_at, id), always by keyset: a page 900,000 items deep costs what
 * the first does. Unfiltered pages walk the index feed_items(user_id, detected_at DESC, id DESC). Pages filtered
 * by hashtag or account walk the primary key of feed_item_sources (user_id, source, detected_at, item_id), one
 * row per item and source (prisma/migrations/20261125190000_feed_item_sources), and join each row to its item
 * of the same account (a row can never show another account's item). With both filters the account's rows are
 * walked and the hashtag looked up by key beside each, before any item is fetched: that page costs as many rows
 * of the account as lie between its matches. One more row than asked
 * tells whether a next page exists. One row instead of one per item: node-postgres spends less CPU decoding
 * one row than 21 (figures in docs/BENCHMARKS.md). The items are joined in the order of their row
 * numbers (the aggregate sorts the page's rows by it). Its parameters are appended to `values`; `shape` names
 * the statement when it is worth preparing.
 */
function pageSelect(user: string, values: unknown[], query: ListPostsQuery, after: FeedPosition | null): { sql: string; shape: string | undefined } {
  const param = (value: unknown) => `$${values.push(value)}`;
  const hashtag = query.hashtag?.toLowerCase();
  const account = query.account?.toLowerCase();
  // Sources are stored lower-case and prefixed.
  const walked = account !== undefined ? `@${account}` : hashtag !== undefined ? `#${hashtag}` : undefined;
  // The walked index's columns: the item's own, or its source row's.
  const [from, at, id] =
    walked === undefined
      ? ['feed_items f', 'f.detected_at', 'f.id']
      : // The item's account is checked again, so no row can show another account's item. More checks here
        // (time, type, source) would make PostgreSQL expect few rows to pass and trade the keyset walk for a
        // hash join over the whole source (posts-plans.test.ts fails then).
        ['feed_item_sources s JOIN feed_items f ON f.id = s.item_id AND f.user_id = s.user_id', 's.detected_at', 's.item_id'];
  // A value the planner must not see: read through a sub-select, it is costed as the generic plan costs every
  // value, so PostgreSQL keeps that one plan. Seeing a rare source, or a `since` past the newest item it sampled
  // (every poll), it would judge the page cheaper than the generic plan and plan each request anew, though the
  // walk is the same either way.
  const hidden = (value: unknown, type: string) => `(SELECT ${param(value)}::${type})`;
  const where = walked === undefined ? [`f.user_id = ${user}`] : [`s.user_id = ${user}`, `s.source = ${hidden(walked, 'text')}`];
  if (query.since) where.push(`${at} > ${hidden(query.since, 'timestamptz')}`);
  if (after) where.push(`(${at}, ${id}) < (${param(new Date(after.detectedAtMs))}, ${param(after.id)})`);
  // Filtered pages check the type on the walked index entry, before the item is fetched.
  if (query.type) where.push(`${walked === undefined ? 'f' : 's'}.type = ${param(query.type)}::feed_item_type`);
  if (hashtag !== undefined && account !== undefined) {
    where.push(
      `EXISTS (SELECT 1 FROM feed_item_sources t WHERE t.user_id = s.user_id AND t.source = ${hidden(`#${hashtag}`, 'text')}
                  AND t.detected_at = s.detected_at AND t.item_id = s.item_id)`,
    );
  }
  // The limit is written into the text (zod made it an integer of 1..100): with LIMIT $n PostgreSQL's generic
  // plan assumes a tenth of the table, loses to a custom plan, and so plans every execution again.
  const limit = Math.trunc(query.limit);
  const sql = `SELECT string_agg(q.item, ',' ORDER BY q.rn) FILTER (WHERE q.rn <= ${limit}) AS items, count(*)::int AS n,
         max(q.id) FILTER (WHERE q.rn = ${limit}) AS last_id, max(q.at_ms) FILTER (WHERE q.rn = ${limit}) AS last_at_ms
    FROM (SELECT ${ITEM} AS item, f.id, floor(extract(epoch FROM f.detected_at) * 1000)::int8 AS at_ms,
                 row_number() OVER (ORDER BY ${at} DESC, ${id} DESC) AS rn
            FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${at} DESC, ${id} DESC LIMIT ${limit + 1}) q`;
  // Every shape (at most 32), at the usual page sizes, is prepared once per connection, so PostgreSQL reuses one
  // plan instead of planning each request (planning cost it more than the keyset scan). Each walks its index the
  // same way whatever the values, so one generic plan suits them all. Other sizes are planned per request, which
  // bounds the statements each connection keeps to 32 x 5 per kind.
  const flags = `${query.since ? 's' : ''}${after ? 'c' : ''}${query.type ? 't' : ''}${hashtag !== undefined ? 'h' : ''}${account !== undefined ? 'a' : ''}`;
  return { sql, shape: PREPARED_LIMITS.has(query.limit) ? `${query.limit}-${flags}` : undefined };
}

/** The answer's body, with a cursor after the page's last item when a next page exists. */
function pageBody(row: PageRow, limit: number, cursors: PostCursor, scope: CursorScope): JsonText {
  const next = row.n > limit && row.last_id !== null && row.last_at_ms !== null ? { detectedAtMs: Number(row.last_at_ms), id: row.last_id } : null;
  const nextCursor = next ? JSON.stringify(cursors.encode(next, scope)) : 'null';
  return new JsonText(`{"data":[${row.items ?? ''}],"next_cursor":${nextCursor}}`);
}

/** One page of the account's feed (see pageSelect), for a caller already authenticated. */
export async function listPosts(pool: pg.Pool, cursors: PostCursor, userId: string, query: ListPostsQuery): Promise<JsonText> {
  const scope = scopeOf(userId, query);
  const after = query.cursor === undefined ? null : cursors.decode(query.cursor, scope);
  const values: unknown[] = [userId];
  const { sql, shape } = pageSelect('$1', values, query, after);
  const { rows } = await pool.query<PageRow>({ text: sql, values, ...(shape ? statementName(pool, `posts-page-${shape}`) : {}) });
  const row = rows[0];
  if (!row) throw new Error('the page statement answered no row');
  return pageBody(row, query.limit, cursors, scope);
}

/** A page read together with the key that asks for it ({@link readPageWithKey}). */
export interface KeyedPage {
  key: CallerRow;
  /** The answer, once the caller is admitted; throws 400 for a cursor not signed for this account and query. */
  body(): JsonText;
}

/**
 * The key lookup of authentication and the page in one statement: one round trip to PostgreSQL instead of
 * two. The page is read for the key's own account only (its user_id comes from the key's row, never from the
 * request). `after` is the position the request's cursor claims, unverified: it only chooses where in that
 * account's feed the page starts, and body() verifies the cursor's MAC, with the account now known, before
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
  const { sql, shape } = pageSelect('k.user_id', values, query, after);
  // The page is an aggregate, so it is one row for every key found: no row means no key.
  const text = `SELECT k.*, p.* FROM (${keyLookupSql('$1')}) k CROSS JOIN LATERAL (${sql}) p`;
  const { rows } = await pool.query<CallerRow & PageRow>({ text, values, ...(shape ? statementName(pool, `posts-key-page-${shape}`) : {}) });
  const row = rows[0];
  if (!row) return undefined;
  return {
    key: row,
    body() {
      const scope = scopeOf(row.user_id, query);
      if (query.cursor !== undefined) cursors.verify(query.cursor, scope);
      return pageBody(row, query.limit, cursors, scope);
    },
  };
}

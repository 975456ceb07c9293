import type pg from 'pg';
import { newIds, type EngagementKind, type FeedItemType } from '@hashwatch/db';
import { TAKE_FEED_CLOCK } from './feed-clock';

/** A link of a post as the feed shows it (CONTRACT 9): `url` is the t.co link in `text`. */
export interface FeedUrl {
  url: string;
  expanded_url: string;
  display_url: string;
}

/** A photo, video or GIF of a post as the feed shows it (CONTRACT 9). */
export interface FeedMedia {
  type: string;
  url: string | null;
  preview_image_url: string | null;
  width: number | null;
  height: number | null;
  alt_text: string | null;
}

/** The post a post quotes, as the feed shows it (CONTRACT 9); `author` with `@`. */
export interface FeedQuoted {
  id: string;
  author: string;
  author_name: string;
  text: string;
  url: string;
}

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
  /** Account posts: `author` (a post of the account) or `mention` (a post mentioning it); null otherwise. Default null. */
  matchedBy?: 'author' | 'mention' | null;
  /** Every source of the account that matched, prefixed (`#btc`, `@alice`); stored lower-case. */
  sources: string[];
  xPostId: string;
  authorId: string | null;
  /** The author's handle (the engaging account's for engagement items); stored with a leading `@`. */
  author: string;
  authorName: string;
  text: string;
  url: string;
  /** X's language code, or null (engagement items: null). */
  lang?: string | null;
  /** Empty or absent: none. */
  urls?: readonly FeedUrl[];
  media?: readonly FeedMedia[];
  quoted?: FeedQuoted | null;
  /** The post was already an edit when first stored: its edited_at is its detected_at. Default false. */
  edited?: boolean;
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

// A timestamp as the item JSON shows it (feed_items_write_head): UTC, milliseconds, `Z`.
const JSON_TIME = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

// One statement for the whole batch: the feed clock is taken in a CTE (so it is the batch's only round trip), and
// unnest turns the parallel arrays back into rows. A post's content (text, author, links…) travels once however
// many accounts it is an item for: each item names its content row by number (`WITH ORDINALITY`). Fifty accounts
// sharing tags made each post fifty copies of its text to encode, send and parse; the wire now carries one.
//
// The item's JSON (`item_head`, and `item_extra` when a post has links, media, a quote or an edit) is written here
// rather than by the row trigger (prisma/migrations/20261129130000_feed_insert_head), to the trigger's byte: what a
// post shows is escaped once per content row (MATERIALIZED, so never once per item) and the batch's detected_at
// formatted once. `sources` travels as JSON text because unnest flattens an array of arrays instead of yielding one
// array per row. The answer is one row: the clock's value and the ids stored (a missing clock row makes
// detected_at null, which the NOT NULL column refuses).
const INSERT_FEED_ITEMS = `
WITH clock AS (${TAKE_FEED_CLOCK}
), at AS (
  SELECT last, to_char(last AT TIME ZONE 'UTC', ${JSON_TIME}) AS shown FROM clock
), content AS MATERIALIZED (
  SELECT c.*,
         ',"author":' || to_json(c.author)::text || ',"author_name":' || to_json(c.author_name)::text
           || ',"text":' || to_json(c.text)::text || ',"url":' || to_json(c.url)::text
           || ',"lang":' || COALESCE(to_json(c.lang)::text, 'null')
           || ',"posted_at":' || COALESCE('"' || to_char(c.posted_at AT TIME ZONE 'UTC', ${JSON_TIME}) || '"', 'null')
           || ',"detected_at":"' || (SELECT shown FROM at) || '"' AS head,
         CASE WHEN c.urls IS NULL AND c.media IS NULL AND c.quoted IS NULL AND NOT c.edited THEN NULL
           ELSE ',"urls":' || COALESCE(c.urls, '[]') || ',"media":' || COALESCE(c.media, '[]')
             || ',"quoted":' || COALESCE(c.quoted, 'null')
             || ',"edited_at":' || CASE WHEN c.edited THEN '"' || (SELECT shown FROM at) || '"' ELSE 'null' END
             || ',"deleted":false'
         END AS extra
    FROM unnest($15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::timestamptz[],
                $22::text[], $23::text[], $24::text[], $25::text[], $26::boolean[])
      WITH ORDINALITY AS c(x_post_id, author_id, author, author_name, text, url, posted_at, lang, urls, media, quoted, edited, n)
), stored AS (
  INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, account, sources, x_post_id, author_id, author,
                          author_name, text, url, posted_at, detected_at, parent_id, kind, engagement_tracked,
                          track_likes, track_reposts, track_comments, lang, urls, media, quoted, edited_at,
                          item_head, item_extra, matched_by)
  SELECT r.id, r.user_id, r.dedupe_key, r.type, r.hashtag, r.account, s.sources, c.x_post_id, c.author_id, c.author,
         c.author_name, c.text, c.url, c.posted_at, (SELECT last FROM at), r.parent_id, r.kind, r.engagement_tracked,
         r.track_likes, r.track_reposts, r.track_comments, c.lang, c.urls::json, c.media::json, c.quoted::json,
         CASE WHEN c.edited THEN (SELECT last FROM at) END,
         '{"id":' || to_json(r.id)::text || ',"type":"' || r.type::text
           || '","hashtag":' || COALESCE(to_json(r.hashtag)::text, 'null')
           || ',"account":' || COALESCE(to_json(r.account)::text, 'null')
           || ',"sources":' || COALESCE(array_to_json(s.sources)::text, '[]')
           || c.head
           || CASE WHEN r.type = 'engagement'
                THEN ',"parent_id":' || COALESCE(to_json(r.parent_id)::text, 'null') || ',"kind":' || COALESCE('"' || r.kind::text || '"', 'null')
                ELSE '' END,
         c.extra, r.matched_by
    FROM unnest($1::text[], $2::text[], $3::text[], $4::feed_item_type[], $5::text[], $6::text[], $7::text[],
                $8::text[], $9::engagement_kind[], $10::boolean[], $11::boolean[], $12::boolean[], $13::boolean[], $14::int[],
                $27::text[])
      AS r(id, user_id, dedupe_key, type, hashtag, account, sources, parent_id, kind, engagement_tracked, track_likes,
           track_reposts, track_comments, content, matched_by)
    CROSS JOIN LATERAL (SELECT ARRAY(SELECT jsonb_array_elements_text(r.sources::jsonb)) AS sources) s
    JOIN content c ON c.n = r.content
  ON CONFLICT (user_id, dedupe_key) DO NOTHING
  RETURNING id
)
SELECT (SELECT last FROM at) AS detected_at, ARRAY(SELECT id FROM stored) AS ids`;

function withAt(handle: string): string {
  return handle.startsWith('@') ? handle : `@${handle}`;
}

function lowerAll(sources: readonly string[]): string[] {
  const lowered = new Array<string>(sources.length);
  for (let i = 0; i < sources.length; i += 1) lowered[i] = (sources[i] as string).toLowerCase();
  return lowered;
}

/**
 * Stores a batch of feed items in one set-based INSERT, inside the caller's transaction: each gets a new
 * `post_` id, and all get the same detected_at from the feed clock (see `TAKE_FEED_CLOCK`), taken by the
 * same statement and held until the caller commits. So call it as the last write of the transaction and
 * commit right after.
 *
 * An item whose (userId, dedupeKey) is already stored, or repeated in the batch, is skipped: `inserted`
 * holds only the rows this call stored, in input order, which are the ones to alert on. An engagement
 * item without `parentId` and `kind` throws before anything is written.
 */
export async function insertFeedItems(client: pg.PoolClient, items: readonly NewFeedItem[]): Promise<{ inserted: FeedItemRow[] }> {
  const columns = toColumns(items);
  const { kept } = columns;
  if (kept.length === 0) return { inserted: [] };

  const ids = newIds('post', kept.length);
  const { content } = columns;
  const { rows } = await client.query<{ detected_at: Date; ids: string[] }>(INSERT_FEED_ITEMS, [
    ids, columns.userIds, columns.dedupeKeys, columns.types, columns.hashtags, columns.accounts, columns.sourcesJson,
    columns.parentIds, columns.kinds, columns.engagementTracked, columns.trackLikes, columns.trackReposts,
    columns.trackComments, columns.contentOf,
    content.xPostIds, content.authorIds, content.authors, content.authorNames, content.texts, content.urls,
    content.postedAts, content.langs, content.urlsJson, content.mediaJson, content.quotedJson, content.edited,
    columns.matchedBy,
  ]);
  const answer = rows[0];
  if (!answer) throw new Error('the feed insert returned no row');
  // Usually every row is new; otherwise keep input order and drop the ones the conflict skipped.
  const storedIds = answer.ids.length === kept.length ? null : new Set(answer.ids);
  const inserted: FeedItemRow[] = [];
  for (let i = 0; i < kept.length; i += 1) {
    const id = ids[i] as string;
    if (storedIds === null || storedIds.has(id)) inserted.push(toRow(columns, i, id, answer.detected_at));
  }
  return { inserted };
}

/** The content rows of a batch: what a post shows, once per distinct content however many items carry it. */
interface ContentColumns {
  xPostIds: string[];
  authorIds: (string | null)[];
  authors: string[];
  authorNames: string[];
  texts: string[];
  urls: string[];
  postedAts: (string | null)[];
  langs: (string | null)[];
  /** JSON text, null when the list is empty (stored as null, shown as []). */
  urlsJson: (string | null)[];
  mediaJson: (string | null)[];
  quotedJson: (string | null)[];
  edited: boolean[];
}

/** The insert's parameter arrays, and the items they hold (the batch less repeats), in input order. */
interface FeedColumns {
  kept: NewFeedItem[];
  userIds: string[];
  dedupeKeys: string[];
  types: string[];
  hashtags: (string | null)[];
  accounts: (string | null)[];
  matchedBy: ('author' | 'mention' | null)[];
  sources: string[][];
  sourcesJson: string[];
  parentIds: (string | null)[];
  kinds: (string | null)[];
  engagementTracked: boolean[];
  trackLikes: boolean[];
  trackReposts: boolean[];
  trackComments: boolean[];
  /** Per kept item, its content row's number (from 1, as WITH ORDINALITY counts). */
  contentOf: number[];
  /** Per kept item, its author with `@`. */
  itemAuthors: string[];
  content: ContentColumns;
}

function jsonList(list: readonly unknown[] | undefined): string | null {
  return list === undefined || list.length === 0 ? null : JSON.stringify(list);
}

/** A content field in a content row's key: null and every string kept apart. */
function keyPart(value: string | null): string {
  return value === null ? '\u0001' : `\u0002${value}`;
}

/**
 * The number of `item`'s content row, added when no earlier item of the batch shows the same: keyed by every
 * content field, so items of one post share a row, and anything that differs (an edit's text) gets its own.
 */
function contentRow(c: ContentColumns, rows: Map<string, number>, item: NewFeedItem, author: string): number {
  const postedAt = item.postedAt === null ? null : item.postedAt.toISOString();
  const urlsJson = jsonList(item.urls);
  const mediaJson = jsonList(item.media);
  const quotedJson = item.quoted ? JSON.stringify(item.quoted) : null;
  const lang = item.lang ?? null;
  const edited = item.edited ?? false;
  const key = [item.xPostId, item.authorId, author, item.authorName, item.text, item.url, postedAt, lang, urlsJson, mediaJson, quotedJson, edited ? 't' : 'f']
    .map(keyPart)
    .join('\u0000');
  const known = rows.get(key);
  if (known !== undefined) return known;
  c.xPostIds.push(item.xPostId);
  c.authorIds.push(item.authorId);
  c.authors.push(author);
  c.authorNames.push(item.authorName);
  c.texts.push(item.text);
  c.urls.push(item.url);
  c.postedAts.push(postedAt);
  c.langs.push(lang);
  c.urlsJson.push(urlsJson);
  c.mediaJson.push(mediaJson);
  c.quotedJson.push(quotedJson);
  c.edited.push(edited);
  rows.set(key, c.xPostIds.length);
  return c.xPostIds.length;
}

/**
 * The parameter arrays, built in one pass over the items without an intermediate row object per item: on a
 * batch of thousands this loop is most of the JavaScript a feed writer runs.
 */
function toColumns(items: readonly NewFeedItem[]): FeedColumns {
  const c: FeedColumns = {
    kept: [], userIds: [], dedupeKeys: [], types: [], hashtags: [], accounts: [], matchedBy: [], sources: [], sourcesJson: [], parentIds: [], kinds: [],
    engagementTracked: [], trackLikes: [], trackReposts: [], trackComments: [], contentOf: [], itemAuthors: [],
    content: { xPostIds: [], authorIds: [], authors: [], authorNames: [], texts: [], urls: [], postedAts: [], langs: [], urlsJson: [], mediaJson: [], quotedJson: [], edited: [] },
  };
  const seen = new Set<string>();
  const contentRows = new Map<string, number>();
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i] as NewFeedItem;
    const key = `${item.userId}\u0000${item.dedupeKey}`;
    if (seen.has(key)) continue;
    if (item.type === 'engagement' && (!item.parentId || !item.kind)) {
      throw new Error(`feed item ${item.dedupeKey}: an engagement item needs parentId and kind`);
    }
    seen.add(key);
    c.kept.push(item);
    c.userIds.push(item.userId);
    c.dedupeKeys.push(item.dedupeKey);
    c.types.push(item.type);
    c.hashtags.push(item.hashtag);
    c.accounts.push(item.account);
    c.matchedBy.push(item.type === 'account' ? (item.matchedBy ?? null) : null);
    const lowered = lowerAll(item.sources);
    c.sources.push(lowered);
    c.sourcesJson.push(JSON.stringify(lowered));
    c.parentIds.push(item.parentId ?? null);
    c.kinds.push(item.kind ?? null);
    c.engagementTracked.push(item.engagementTracked ?? false);
    c.trackLikes.push(item.trackLikes ?? true);
    c.trackReposts.push(item.trackReposts ?? true);
    c.trackComments.push(item.trackComments ?? true);
    const author = withAt(item.author);
    c.itemAuthors.push(author);
    c.contentOf.push(contentRow(c.content, contentRows, item, author));
  }
  return c;
}

/** The stored row of the `i`th kept item. */
function toRow(c: FeedColumns, i: number, id: string, detectedAt: Date): FeedItemRow {
  const item = c.kept[i] as NewFeedItem;
  return {
    id,
    userId: item.userId,
    dedupeKey: item.dedupeKey,
    type: item.type,
    hashtag: item.hashtag,
    account: item.account,
    matchedBy: c.matchedBy[i] ?? null,
    sources: c.sources[i] as string[],
    xPostId: item.xPostId,
    authorId: item.authorId,
    author: c.itemAuthors[i] as string,
    authorName: item.authorName,
    text: item.text,
    url: item.url,
    postedAt: item.postedAt,
    parentId: c.parentIds[i] ?? null,
    kind: (c.kinds[i] ?? null) as FeedItemRow['kind'],
    engagementTracked: c.engagementTracked[i] as boolean,
    trackLikes: c.trackLikes[i] as boolean,
    trackReposts: c.trackReposts[i] as boolean,
    trackComments: c.trackComments[i] as boolean,
    lang: item.lang ?? null,
    urls: item.urls ?? [],
    media: item.media ?? [],
    quoted: item.quoted ?? null,
    edited: item.edited ?? false,
    detectedAt,
  };
}

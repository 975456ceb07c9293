import type pg from 'pg';
import { AppError } from '@hashwatch/errors';
import { filtersInputSchema, normalizeFilters, passesFilters, type FiltersInput } from '@hashwatch/post-filters';
import { z } from 'zod';
import { JsonText } from '../../http/json-text';
import { ITEM } from '../posts/posts.service';
import { postSchema } from '../posts/posts.schema';

/** Stored items of the source read for a preview, newest first. */
export const PREVIEW_EXAMINED = 500;
/** Passing items a preview shows. */
export const PREVIEW_SHOWN = 20;

export const filterPreviewBodySchema = z
  .strictObject({
    filters: filtersInputSchema.nullable().meta({ description: 'The filters to try; null: none.' }),
  })
  .meta({ id: 'FilterPreviewRequest' });

export const filterPreviewSchema = z
  .object({
    data: z.array(postSchema).meta({ description: `The newest ${PREVIEW_SHOWN} of them that pass, newest first.` }),
    examined: z.number().int().meta({ description: `Stored posts of this source read, newest first (at most ${PREVIEW_EXAMINED}).` }),
    passed: z.number().int().meta({ description: 'How many of those would have passed.' }),
  })
  .meta({ id: 'FilterPreview' });

interface PreviewRow {
  id: string;
  text: string;
  has_media: boolean;
  has_links: boolean;
  is_quote: boolean;
  author_verified: boolean;
  author_followers: number | null;
}

// The source's items of this account, through the index of feed_item_sources (user_id, source, detected_at,
// item_id), that this track's own rules pass ($3-$6: another track of the same tag in another language, or a
// mention stored for a tracker that asked for them, is not this track's), with what a filter reads: the post's own facts as the scanner recorded them at detection (x_posts), or,
// on posts stored before those were kept, what the item shows (a link other than to the post's own photo page, a
// quoted post) and no verification or follower count.
const PREVIEW_ITEMS = `
SELECT f.id, f.text,
       COALESCE(json_array_length(f.media), 0) > 0 AS has_media,
       COALESCE(p.has_links, EXISTS (SELECT 1 FROM json_array_elements(COALESCE(f.urls, '[]'::json)) u
                                      WHERE u->>'expanded_url' !~ '/status/[0-9]+/(photo|video)/[0-9]+$')) AS has_links,
       COALESCE(p.is_quote, f.quoted IS NOT NULL) AS is_quote,
       COALESCE(p.author_verified, false) AS author_verified,
       p.author_followers
  FROM feed_item_sources s
  JOIN feed_items f ON f.id = s.item_id AND f.user_id = s.user_id
  LEFT JOIN x_posts p ON p.id = f.x_post_id
 WHERE s.user_id = $1 AND s.source = $2 AND f.type <> 'engagement' AND NOT f.deleted
   AND ($3::text IS NULL OR f.lang = $3)
   AND NOT ($4::boolean AND COALESCE(p.is_retweet, false))
   AND NOT ($5::boolean AND COALESCE(p.is_reply, false))
   AND NOT ($6::boolean AND lower(f.author) <> $2)
 ORDER BY s.detected_at DESC, s.item_id DESC
 LIMIT ${PREVIEW_EXAMINED}`;

// The JSON of the items shown (GET /v1/posts's), in the order given.
const SHOWN_ITEMS = `
SELECT ${ITEM} AS json
  FROM unnest($2::text[]) WITH ORDINALITY AS shown(id, n)
  JOIN feed_items f ON f.id = shown.id AND f.user_id = $1
 ORDER BY shown.n`;

/** A source's label as feed items name it (`#btc`, `@alice`) and the rules of the track beside its filters. */
interface SourceRules {
  label: string;
  lang: string | null;
  exclude_retweets: boolean;
  exclude_replies: boolean;
  /** An account track without include_mentions: only the handle's own posts. */
  author_only: boolean;
}

const TRACK_RULES = `SELECT '#' || hashtag_norm AS label, lang, exclude_retweets, false AS exclude_replies, false AS author_only
  FROM tracks WHERE id = $1 AND user_id = $2`;
const ACCOUNT_RULES = `SELECT '@' || username_norm AS label, NULL::text AS lang, false AS exclude_retweets, exclude_replies, NOT include_mentions AS author_only
  FROM account_tracks WHERE id = $1 AND user_id = $2`;

/** The source of the account; not_found for another account's or an unknown id. */
async function sourceRules(pool: pg.Pool, table: 'tracks' | 'account_tracks', userId: string, id: string, noun: string): Promise<SourceRules> {
  const { rows } = await pool.query<SourceRules>(table === 'tracks' ? TRACK_RULES : ACCOUNT_RULES, [id, userId]);
  const rules = rows[0];
  if (rules === undefined) throw new AppError('not_found', `no ${noun} ${id}`);
  return rules;
}

/**
 * Which of the source's last stored posts (of this account, that the track's own rules pass) would have passed these
 * filters: the one matcher the
 * scanner uses, on what each post showed when it was detected. Reads the facts of at most {@link PREVIEW_EXAMINED} items
 * and the JSON of the {@link PREVIEW_SHOWN} shown; changes nothing.
 */
export async function previewFilters(
  pool: pg.Pool,
  source: { table: 'tracks' | 'account_tracks'; noun: string },
  userId: string,
  id: string,
  input: FiltersInput | null,
): Promise<JsonText> {
  const rules = await sourceRules(pool, source.table, userId, id, source.noun);
  const filters = normalizeFilters(input);
  const { rows } = await pool.query<PreviewRow>(PREVIEW_ITEMS, [userId, rules.label, rules.lang, rules.exclude_retweets, rules.exclude_replies, rules.author_only]);
  const passing = rows.filter((row) =>
    passesFilters(filters, {
      text: row.text,
      hasMedia: row.has_media,
      hasLinks: row.has_links,
      isQuote: row.is_quote,
      authorVerified: row.author_verified,
      authorFollowers: row.author_followers,
    }),
  );
  const shown = passing.slice(0, PREVIEW_SHOWN).map((row) => row.id);
  const { rows: items } = shown.length === 0 ? { rows: [] } : await pool.query<{ json: string }>(SHOWN_ITEMS, [userId, shown]);
  return new JsonText(`{"data":[${items.map((item) => item.json).join(',')}],"examined":${rows.length},"passed":${passing.length}}`);
}

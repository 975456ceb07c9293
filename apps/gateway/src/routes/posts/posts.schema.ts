import { z } from 'zod';
import { isoInstant } from '@hashwatch/iso-time';

export const FEED_ITEM_TYPES = ['hashtag', 'account', 'engagement'] as const;
export const ENGAGEMENT_KINDS = ['retweet', 'like', 'reply'] as const;
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

// A hashtag is 1-100 letters (any script), digits or _, as tracks accept it.
const HASHTAG = /^[\p{L}\p{M}\p{N}_]{1,100}$/u;
const timestamp = z.string().meta({ example: '2026-11-22T01:24:59.123Z' });

export const listPostsQuerySchema = z
  .strictObject({
    hashtag: z
      .string()
      .regex(HASHTAG, 'must be the tag without #: 1-100 letters, digits or _')
      .optional()
      .meta({
        // The generator would print the regex's /u flag into the pattern.
        pattern: HASHTAG.source,
        example: 'btc',
        description: 'Only items with this hashtag among their `sources`, in any position; the tag without `#`, case-insensitive, 1-100 letters, digits or `_`.',
      }),
    account: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,15}$/, 'must be the handle without @: 1-15 letters, digits or _')
      .optional()
      .meta({
        example: 'alice',
        description: 'Only items with this account among their `sources`, in any position; the handle without `@`, case-insensitive, 1-15 letters, digits or `_`.',
      }),
    type: z
      .enum(FEED_ITEM_TYPES, { error: `must be one of ${FEED_ITEM_TYPES.join(', ')}` })
      .optional()
      .meta({ description: 'Only items of this type. Omitted: every type.' }),
    limit: z.coerce
      .number({ error: `must be an integer from 1 to ${MAX_LIMIT}` })
      .int(`must be an integer from 1 to ${MAX_LIMIT}`)
      .min(1, `must be an integer from 1 to ${MAX_LIMIT}`)
      .max(MAX_LIMIT, `must be an integer from 1 to ${MAX_LIMIT}`)
      .default(DEFAULT_LIMIT)
      .meta({ description: `Items per page: 1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT}.` }),
    cursor: z
      .string()
      .max(200, 'malformed; pass next_cursor exactly as it was returned')
      .optional()
      .meta({
        description:
          'Opaque: the `next_cursor` of the previous page. Send it with the same `hashtag`, `account`, `type` and `since` as that request (`limit` may change); a modified cursor, or one from another account or other filters, answers 400.',
      }),
    since: z
      .string()
      .max(64, 'must be an ISO 8601 date-time with a zone')
      .transform((text, ctx) => {
        const instant = isoInstant(text);
        if (!instant) {
          ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-22T01:24:59.123Z or 2026-11-22T03:24:59+02:00' });
          return z.NEVER;
        }
        return instant;
      })
      .optional()
      .meta({
        example: '2026-11-22T01:24:59.123Z',
        description:
          'Only items detected strictly after this instant: ISO 8601 with a zone (`Z` or an offset); without a zone answers 400. ' +
          'To poll, pass the `detected_at` of the newest item you have seen: you get every item exactly once, including items stored ' +
          'concurrently by several scanners (an item can become visible up to about 2 s after its `detected_at`). When a poll answers ' +
          'a `next_cursor`, follow it (with the same `since`) before polling again.',
      }),
  })
  .meta({ id: 'ListPostsQuery' });

const engagementSchema = z
  .object({
    retweet_count: z.number().int().meta({ description: 'Real total.' }),
    like_count: z.number().int().meta({ description: 'Real total.' }),
    reply_count: z.number().int().meta({ description: 'Real total.' }),
    retweeters: z.array(z.string()).meta({ description: 'Handles with `@`; a sample capped at 100, not exhaustive.', example: ['@bob'] }),
    likers: z.array(z.string()).meta({ description: 'Handles with `@`; a sample capped at 100, not exhaustive.' }),
    repliers: z.array(z.string()).meta({ description: 'Handles with `@`; a sample capped at 100, not exhaustive.' }),
    updated_at: timestamp.meta({ description: 'When the counts were last refreshed (the detection time until the first refresh).' }),
  })
  .meta({ id: 'Engagement', description: 'Counts and samples of an engagement-tracked post, refreshed for 48 hours after detection.' });

const postUrlSchema = z
  .object({
    url: z.string().meta({ example: 'https://t.co/D8LLYXkHSm', description: 'The t.co link as it stands in `text`.' }),
    expanded_url: z.string().meta({ example: 'https://example.com/report' }),
    display_url: z.string().meta({ example: 'example.com/report' }),
  })
  .meta({ id: 'PostUrl' });

const postMediaSchema = z
  .object({
    type: z.string().meta({ example: 'photo', description: '`photo`, `video` or `animated_gif` (X may add kinds).' }),
    url: z.string().nullable().meta({ example: 'https://pbs.twimg.com/media/Fabc.jpg', description: 'Photos.' }),
    preview_image_url: z.string().nullable().meta({ description: 'Videos and GIFs: a still frame.' }),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    alt_text: z.string().nullable(),
  })
  .meta({ id: 'PostMedia' });

const quotedPostSchema = z
  .object({
    id: z.string().meta({ example: '1861234567890123000', description: "X's id of the quoted post." }),
    author: z.string().meta({ example: '@alice' }),
    author_name: z.string(),
    text: z.string().meta({ description: 'The quoted post as its author wrote it.' }),
    url: z.string(),
  })
  .meta({ id: 'QuotedPost' });

export const postSchema = z
  .object({
    id: z.string().meta({ example: 'post_3q2x9XkQzLpTnW8r' }),
    type: z.enum(FEED_ITEM_TYPES).meta({ description: '`engagement`: a new retweet, like or reply on an engagement-tracked post.' }),
    hashtag: z.string().nullable().meta({ example: 'btc', description: 'First hashtag source that matched, without `#`; null for account posts.' }),
    account: z.string().nullable().meta({ example: null, description: 'First account source that matched, without `@`; null for hashtag posts.' }),
    sources: z.array(z.string()).meta({ example: ['#btc', '@alice'], description: 'Every source of this account that matched, prefixed.' }),
    matched_by: z.enum(['author', 'mention']).nullable().meta({
      example: null,
      description: 'Account posts: `author` (a post of the account) or `mention` (a post mentioning it, with `include_mentions` on); null for hashtag and engagement items.',
    }),
    author: z.string().meta({ example: '@satoshi', description: 'Author handle with `@`; for engagement items, the engaging account.' }),
    author_name: z.string().meta({ example: 'Satoshi' }),
    text: z.string().meta({
      description:
        'The post as its author wrote it: X\'s HTML escaping (`&amp;`, `&lt;`, `&gt;`) undone once, the whole text of a long post, ' +
        'a retweet as `RT @author: ` and the whole original. t.co links stay as X sent them (see `urls`). A fixed note for retweet ' +
        'and like events; empty once the post is deleted on X.',
    }),
    url: z.string().meta({ example: 'https://x.com/satoshi/status/1861234567890123456', description: 'The newest version of the post.' }),
    urls: z.array(postUrlSchema).meta({ description: 'The links in `text`, in order; empty when none (and for engagement items).' }),
    media: z.array(postMediaSchema).meta({ description: "The post's photos, videos and GIFs (a retweet's: the original's); empty when none." }),
    quoted: quotedPostSchema.nullable().meta({ description: 'The post this one quotes, or null.' }),
    lang: z.string().nullable().meta({ example: 'en', description: "X's language code (`und` when undetermined), or null." }),
    edited_at: timestamp.nullable().meta({
      description: 'When the newest version of an edited post was seen (an edit is the same item, updated, with no second alert); null when never edited.',
    }),
    deleted: z.boolean().meta({ description: 'The post was deleted on X: its id and times stay; text, author name, urls, media and quote are removed.' }),
    posted_at: timestamp.nullable().meta({ description: 'Publication time; null for retweet and like events.' }),
    detected_at: timestamp.meta({ description: 'When Hashwatch stored the item; the feed order and the `since` key.' }),
    engagement: engagementSchema.nullable().meta({ description: 'Null unless the source had engagement tracking on; always null for engagement items.' }),
    parent_id: z.string().optional().meta({ description: 'Engagement items only: the `post_` id of the engaged item.' }),
    kind: z.enum(ENGAGEMENT_KINDS).optional().meta({ description: 'Engagement items only.' }),
  })
  .meta({ id: 'Post' });

export const postListSchema = z
  .object({
    data: z.array(postSchema).meta({ description: 'Newest first (by `detected_at`, then `id`).' }),
    next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next (older) page; null when there is none.' }),
  })
  .meta({ id: 'PostList' });

export type ListPostsQuery = z.infer<typeof listPostsQuerySchema>;

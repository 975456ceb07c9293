import { z } from 'zod';

// Wire shapes of X API v2 answers, accepting both spellings: OpenAPI 2.166 (retweet_count, referenced_tweets,
// edit_history_tweet_ids, includes.tweets) and 2.167 (repost_count, referenced_posts, edit_history_post_ids,
// includes.posts). Unknown keys are ignored; only what the client reads is required.

const snowflake = z.string().regex(/^[0-9]{1,19}$/);
const count = z.number().int().min(0);

const reference = z.object({ type: z.string().min(1), id: snowflake });
const tag = z.object({ start: z.number().int(), end: z.number().int(), tag: z.string() });
const mention = z.object({ start: z.number().int(), end: z.number().int(), username: z.string().nullish(), id: z.string().nullish() });
const urlEntity = z.object({
  start: z.number().int(),
  end: z.number().int(),
  url: z.string(),
  expanded_url: z.string().optional(),
  display_url: z.string().optional(),
  media_key: z.string().optional(),
});

export const wireEntitiesSchema = z.object({
  hashtags: z.array(tag).nullish(),
  cashtags: z.array(tag).nullish(),
  mentions: z.array(mention).nullish(),
  urls: z.array(urlEntity).nullish(),
});

const publicMetrics = z
  .object({
    retweet_count: count.optional(),
    repost_count: count.optional(),
    reply_count: count,
    like_count: count,
    quote_count: count.optional(),
    bookmark_count: count.optional(),
    impression_count: count.optional(),
  })
  .refine((metrics) => metrics.retweet_count !== undefined || metrics.repost_count !== undefined, {
    message: 'public_metrics has neither retweet_count nor repost_count',
  });

/** A post as the counts-only lookup returns it; `text` and the rest are X's defaults, not read. */
const wireCountsSchema = z.object({ id: snowflake, public_metrics: publicMetrics.optional() });

const withheld = z.object({ copyright: z.boolean().optional(), country_codes: z.array(z.string()).optional(), scope: z.string().optional() });

/**
 * The fields of a post the client reads. A post that fails this schema is not thrown away: each field is kept
 * when it parses on its own (salvagePost), so one bad entity never costs a page its other posts.
 */
export const wirePostShape = {
  id: snowflake,
  text: z.string(),
  author_id: z.string().optional(),
  created_at: z.iso.datetime({ offset: true }).optional(),
  lang: z.string().optional(),
  conversation_id: z.string().optional(),
  in_reply_to_user_id: z.string().optional(),
  referenced_tweets: z.array(reference).optional(),
  referenced_posts: z.array(reference).optional(),
  edit_history_tweet_ids: z.array(snowflake).optional(),
  edit_history_post_ids: z.array(snowflake).optional(),
  public_metrics: publicMetrics.optional(),
  entities: wireEntitiesSchema.optional(),
  /** A long post's whole text and its own entities; sent only when tweet.fields asks for note_tweet. */
  note_tweet: z.object({ text: z.string(), entities: wireEntitiesSchema.optional() }).optional(),
  attachments: z.object({ media_keys: z.array(z.string()).optional() }).optional(),
  withheld: withheld.optional(),
};

export const wirePostSchema = z.object(wirePostShape);

// verified and public_metrics only filter posts (a track's verified_only, min_followers): a value that does not parse is
// read as absent rather than costing the author.
export const wireUserSchema = z.object({
  id: z.string().min(1),
  username: z.string().min(1),
  name: z.string(),
  verified: z.boolean().optional().catch(undefined),
  verified_type: z.string().optional().catch(undefined),
  public_metrics: z.object({ followers_count: z.number().int().nonnegative().optional().catch(undefined) }).optional().catch(undefined),
});

export const wireMediaSchema = z.object({
  media_key: z.string().min(1),
  type: z.string().min(1),
  url: z.string().optional(),
  preview_image_url: z.string().optional(),
  width: z.number().int().min(0).optional(),
  height: z.number().int().min(0).optional(),
  alt_text: z.string().optional(),
});

export const wireProblemSchema = z.object({
  type: z.string().optional(),
  title: z.string().optional(),
  detail: z.string().optional(),
  resource_type: z.string().optional(),
  resource_id: z.string().optional(),
  parameter: z.string().optional(),
  value: z.unknown().optional(),
});

// Posts, users and media are read one by one (normalize-response.ts), so one that does not parse costs only itself.
const items = z.array(z.unknown()).optional();

export const wireIncludesSchema = z.object({ users: items, tweets: items, posts: items, media: items });

const pageMeta = z.object({
  result_count: z.number().int().min(0).optional(),
  newest_id: z.string().optional(),
  oldest_id: z.string().optional(),
  next_token: z.string().optional(),
});

/** search/recent, users/:id/tweets and GET /2/tweets?ids=. */
export const postListResponseSchema = z.object({
  data: items,
  includes: wireIncludesSchema.optional(),
  errors: z.array(wireProblemSchema).optional(),
  meta: pageMeta.optional(),
});

/** GET /2/tweets?ids= with tweet.fields=public_metrics and no expansions. */
export const postCountsResponseSchema = z.object({
  data: z.array(wireCountsSchema).optional(),
  errors: z.array(wireProblemSchema).optional(),
});

/** users/by (array) and liking_users / retweeted_by (array with meta). */
export const userListResponseSchema = z.object({
  data: z.array(wireUserSchema).optional(),
  errors: z.array(wireProblemSchema).optional(),
  meta: pageMeta.optional(),
});

/** users/by/username/:username. */
export const singleUserResponseSchema = z.object({
  data: wireUserSchema.optional(),
  errors: z.array(wireProblemSchema).optional(),
});

const wireRule = z.object({ id: snowflake, value: z.string(), tag: z.string().optional() });

/** A problem in a rules answer's `errors`: X adds the rule's `value` (and `id` for a duplicate), and `details` for invalid rules. */
const ruleProblem = wireProblemSchema.extend({ id: z.string().optional(), details: z.array(z.string()).optional() });

/** GET /2/tweets/search/stream/rules (RulesLookupResponse). */
export const rulesLookupResponseSchema = z.object({
  data: z.array(wireRule).optional(),
  meta: z.object({ sent: z.string().optional(), result_count: z.number().int().min(0).optional(), next_token: z.string().optional() }).optional(),
});

/** POST /2/tweets/search/stream/rules (AddOrDeleteRulesResponse); the summary is that of an add or of a delete. */
export const rulesUpdateResponseSchema = z.object({
  data: z.array(wireRule).optional(),
  errors: z.array(ruleProblem).optional(),
  meta: z
    .object({
      sent: z.string().optional(),
      summary: z
        .object({
          created: count.optional(),
          not_created: count.optional(),
          valid: count.optional(),
          invalid: count.optional(),
          deleted: count.optional(),
          not_deleted: count.optional(),
        })
        .optional(),
    })
    .optional(),
});

/** One line of the filtered stream: a post with its includes and matching rules, or errors (an operational disconnect). */
export const streamLineSchema = z.object({
  data: z.unknown().optional(),
  includes: wireIncludesSchema.optional(),
  matching_rules: z.array(z.object({ id: z.string().min(1), tag: z.string().optional() })).optional(),
  errors: z.array(wireProblemSchema.extend({ disconnect_type: z.string().optional(), connection_issue: z.string().optional() })).optional(),
});

/** X's two error bodies: problem JSON, and the older `{errors:[{code, message}]}` (code 88 = rate limit). */
export const errorBodySchema = z.object({
  type: z.string().optional(),
  title: z.string().optional(),
  detail: z.string().optional(),
  errors: z.array(z.object({ code: z.number().optional(), message: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() })).optional(),
  /** ConnectionExceptionProblem on the filtered stream: TooManyConnections, RuleConfigurationIssue... */
  connection_issue: z.string().optional(),
});

export type WirePost = z.infer<typeof wirePostSchema>;
export type WireUser = z.infer<typeof wireUserSchema>;
export type WireMedia = z.infer<typeof wireMediaSchema>;
export type WireEntities = z.infer<typeof wireEntitiesSchema>;
export type WireIncludes = z.infer<typeof wireIncludesSchema>;
export type WireProblem = z.infer<typeof wireProblemSchema>;
export type PostListResponse = z.infer<typeof postListResponseSchema>;
export type PostCountsResponse = z.infer<typeof postCountsResponseSchema>;
export type WireMetrics = z.infer<typeof publicMetrics>;
export type RulesLookupResponse = z.infer<typeof rulesLookupResponseSchema>;
export type RulesUpdateResponse = z.infer<typeof rulesUpdateResponseSchema>;
export type StreamLine = z.infer<typeof streamLineSchema>;

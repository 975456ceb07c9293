import { z } from 'zod';
import { X_ENDPOINTS } from '../endpoints';
import { FAULT_KINDS } from '../faults/fault-injector';
import { generatorOverridesSchema } from '../generator/generator-options';
import { codePointLength } from '../store/code-points';
import { MEDIA_TYPES } from '../store/sim-store';

const username = z.string().regex(/^[A-Za-z0-9_]{1,15}$/, '1-15 of A-Z, a-z, 0-9, _');
const snowflake = z.string().regex(/^[0-9]{1,19}$/, 'a numeric id of 1-19 digits');
const timestamp = z.iso.datetime({ offset: true });
const count = z.number().int().min(0);

// X's limits: 25,000 characters for a long post (counted in code points, as X counts), 4 photos or one video or
// GIF per post.
const postText = z
  .string()
  .min(1)
  .refine((text) => codePointLength(text) <= 25_000, { message: 'at most 25,000 characters' });
const lang = z.string().regex(/^([a-z]{2,3}(-[A-Za-z0-9]+)?|und)$/, 'a language code such as en, in, qst or und');
const countryCodes = z.array(z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code such as DE')).min(1).max(250);

export const postWithheldBody = z
  .object({ copyright: z.boolean().default(false), country_codes: countryCodes, scope: z.enum(['tweet', 'user']).optional() })
  .strict();

export const userWithheldBody = z.object({ country_codes: countryCodes, scope: z.literal('user').optional() }).strict();

const mediaItem = z
  .object({
    type: z.enum(MEDIA_TYPES),
    /** The photo itself (photos). */
    url: z.url().optional(),
    /** A still of the video or GIF. */
    preview_image_url: z.url().optional(),
    width: z.number().int().min(1).max(100_000),
    height: z.number().int().min(1).max(100_000),
    alt_text: z.string().max(1000).optional(),
  })
  .strict()
  .refine((media) => (media.type === 'photo' ? media.url !== undefined : media.preview_image_url !== undefined), {
    message: 'a photo needs url, a video or animated_gif preview_image_url',
  });

const media = z
  .array(mediaItem)
  .min(1)
  .max(4)
  .refine((items) => items.length === 1 || items.every((item) => item.type === 'photo'), { message: 'up to 4 photos, or one video or animated_gif' });

/** Addresses added at the end of the text; X turns each into a t.co link. */
const links = z.array(z.url({ protocol: /^https?$/ })).min(1).max(10);

export const createUserBody = z
  .object({
    username,
    name: z.string().min(1).max(50).optional(),
    id: snowflake.optional(),
    description: z.string().max(160).optional(),
    location: z.string().max(30).optional(),
    verified: z.boolean().optional(),
    protected: z.boolean().optional(),
    followers_count: count.optional(),
    created_at: timestamp.optional(),
    withheld: userWithheldBody.optional(),
  })
  .strict();

export const injectPostBody = z
  .object({
    /** Handle of the author; an unknown handle creates the user. */
    author: username,
    /** What the author wrote; http(s) addresses in it become t.co links. Over 280 characters makes a long post. */
    text: postText.optional(),
    lang: lang.optional(),
    created_at: timestamp.optional(),
    reply_to: snowflake.optional(),
    retweet_of: snowflake.optional(),
    quote_of: snowflake.optional(),
    links: links.optional(),
    media: media.optional(),
    withheld: postWithheldBody.optional(),
    /** Extra delay before search shows the post, on top of the simulator's index lag. */
    visible_after_ms: count.optional(),
    public_metrics: z
      .object({ retweet_count: count, reply_count: count, like_count: count, quote_count: count, bookmark_count: count, impression_count: count })
      .partial()
      .strict()
      .optional(),
  })
  .strict()
  .refine((body) => body.retweet_of !== undefined || body.text !== undefined || body.media !== undefined || body.links !== undefined, {
    message: 'text is required unless retweet_of, media or links is given',
    path: ['text'],
  })
  .refine((body) => !(body.retweet_of && (body.reply_to || body.quote_of || body.text || body.media || body.links)), {
    message: 'a retweet takes no text, links, media, reply_to or quote_of',
    path: ['retweet_of'],
  });

/** A new version of a post: its text, and optionally new links, media or language (otherwise kept). */
export const editPostBody = z
  .object({ text: postText, links: links.optional(), media: media.optional(), lang: lang.optional(), visible_after_ms: count.optional() })
  .strict();

export const engagementBody = z
  .object({
    /** Accounts that engage; unknown handles are created. */
    usernames: z.array(username).max(10_000).default([]),
    /** Engagement by accounts nobody will list: moves only the count, like X's totals beyond the sample. */
    anonymous: count.max(1_000_000_000).default(0),
  })
  .strict();

export const replyBody = z
  .object({
    author: username,
    text: postText,
    lang: lang.optional(),
    created_at: timestamp.optional(),
  })
  .strict();

export const faultBody = z
  .object({
    endpoint: z.enum([...X_ENDPOINTS, '*']),
    kind: z.enum(FAULT_KINDS),
    count: z.number().int().min(1).max(100_000).default(1),
    /** `slow`: hold, then serve normally. `rate_limited`: hold, then answer 429 with the headers of arrival. */
    delay_ms: z.number().int().min(0).max(600_000).default(0),
    body: z.enum(['code88', 'problem']).optional(),
    /** `rate_limited` only: the 429's x-rate-limit-reset, in seconds after the request arrived. */
    reset_in_seconds: z.number().int().min(0).max(86_400).optional(),
  })
  .strict()
  .refine((fault) => fault.reset_in_seconds === undefined || fault.kind === 'rate_limited', {
    message: 'reset_in_seconds applies to rate_limited faults only',
    path: ['reset_in_seconds'],
  });

export const rateLimitBody = z
  .object({
    endpoint: z.enum(X_ENDPOINTS).optional(),
    app: count.optional(),
    user: count.optional(),
    window_seconds: z.number().positive().max(86_400).optional(),
  })
  .strict()
  .refine((body) => body.endpoint !== undefined || (body.app === undefined && body.user === undefined), {
    message: 'app and user limits need an endpoint',
    path: ['endpoint'],
  });

export const requestLogQuery = z
  .object({ endpoint: z.enum(X_ENDPOINTS).optional(), limit: z.coerce.number().int().min(1).max(100_000).optional() })
  .strict();

/** `POST /_sim/replay`: the body is a recorded X answer; this handle authors posts recorded without author_id. */
export const replayQuery = z.object({ default_author: username.optional() }).strict();

export const streamDisconnectBody = z
  .object({
    /** Write X's operational-disconnect error line before closing; otherwise the socket is just closed. */
    operational: z.boolean().default(false),
  })
  .strict();

export const generatorStartBody = generatorOverridesSchema;

export type CreateUserBody = z.input<typeof createUserBody>;
export type InjectPostBody = z.input<typeof injectPostBody>;
export type EditPostBody = z.input<typeof editPostBody>;
export type PostWithheldBody = z.input<typeof postWithheldBody>;
export type UserWithheldBody = z.input<typeof userWithheldBody>;
export type EngagementBody = z.input<typeof engagementBody>;
export type ReplyBody = z.input<typeof replyBody>;
export type FaultBody = z.input<typeof faultBody>;
export type StreamDisconnectBody = z.input<typeof streamDisconnectBody>;

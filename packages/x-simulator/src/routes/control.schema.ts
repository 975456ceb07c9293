import { z } from 'zod';
import { X_ENDPOINTS } from '../endpoints';
import { FAULT_KINDS } from '../faults/fault-injector';
import { generatorOverridesSchema } from '../generator/generator-options';

const username = z.string().regex(/^[A-Za-z0-9_]{1,15}$/, '1-15 of A-Z, a-z, 0-9, _');
const snowflake = z.string().regex(/^[0-9]{1,19}$/, 'a numeric id of 1-19 digits');
const timestamp = z.iso.datetime({ offset: true });
const count = z.number().int().min(0);

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
  })
  .strict();

export const injectPostBody = z
  .object({
    /** Handle of the author; an unknown handle creates the user. */
    author: username,
    text: z.string().min(1).max(25_000).optional(),
    lang: z.string().regex(/^([a-z]{2,3}(-[A-Za-z0-9]+)?|und)$/).optional(),
    created_at: timestamp.optional(),
    reply_to: snowflake.optional(),
    retweet_of: snowflake.optional(),
    quote_of: snowflake.optional(),
    /** Extra delay before search shows the post, on top of the simulator's index lag. */
    visible_after_ms: count.optional(),
    public_metrics: z
      .object({ retweet_count: count, reply_count: count, like_count: count, quote_count: count, bookmark_count: count, impression_count: count })
      .partial()
      .strict()
      .optional(),
  })
  .strict()
  .refine((body) => body.retweet_of !== undefined || body.text !== undefined, { message: 'text is required unless retweet_of is given', path: ['text'] })
  .refine((body) => !(body.retweet_of && (body.reply_to || body.quote_of || body.text)), {
    message: 'a retweet takes no text, reply_to or quote_of',
    path: ['retweet_of'],
  });

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
    text: z.string().min(1).max(25_000),
    lang: z.string().regex(/^([a-z]{2,3}(-[A-Za-z0-9]+)?|und)$/).optional(),
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

export const streamDisconnectBody = z
  .object({
    /** Write X's operational-disconnect error line before closing; otherwise the socket is just closed. */
    operational: z.boolean().default(false),
  })
  .strict();

export const generatorStartBody = generatorOverridesSchema;

export type CreateUserBody = z.input<typeof createUserBody>;
export type InjectPostBody = z.input<typeof injectPostBody>;
export type EngagementBody = z.input<typeof engagementBody>;
export type ReplyBody = z.input<typeof replyBody>;
export type FaultBody = z.input<typeof faultBody>;
export type StreamDisconnectBody = z.input<typeof streamDisconnectBody>;

import { z } from 'zod';

// Inputs of the client, checked before anything is sent: a bad id or an oversized list costs no request.

export const clientOptionsSchema = z.object({
  baseUrl: z.url({ protocol: /^https?$/ }),
  bearerToken: z.string().min(1),
  userToken: z.string().min(1).optional(),
  keyPrefix: z.string().min(1),
  timeoutMs: z.number().int().positive().default(10_000),
  onRateLimited: z.enum(['throw', 'wait']).default('throw'),
  maxRateLimitWaitMs: z.number().int().min(0).default(16 * 60_000),
  maxQueryLength: z.number().int().min(1).max(4096).default(512),
  rateLimitFallbackSeconds: z.number().int().positive().default(60),
});

export const snowflake = z.string().regex(/^[0-9]{1,19}$/, 'must be a numeric id of 1-19 digits');
export const username = z.string().regex(/^[A-Za-z0-9_]{1,15}$/, 'must be 1-15 of A-Z, a-z, 0-9, _');
const time = z.union([z.date(), z.iso.datetime({ offset: true }).transform((value) => new Date(value))]);
const token = z.string().min(1);

export const searchParamsSchema = z
  .object({ query: z.string().min(1), sinceId: snowflake.optional(), startTime: time.optional(), endTime: time.optional(), maxResults: z.number().int().min(10).max(100).optional(), nextToken: token.optional() })
  .strict();
export const userPostsParamsSchema = z
  .object({
    sinceId: snowflake.optional(),
    startTime: time.optional(),
    maxResults: z.number().int().min(5).max(100).optional(),
    paginationToken: token.optional(),
    exclude: z.array(z.enum(['retweets', 'replies'])).optional(),
  })
  .strict();
export const engagementParamsSchema = z.object({ paginationToken: token.optional(), maxResults: z.number().int().min(1).max(100).optional() }).strict();

export type SearchRecentParams = z.input<typeof searchParamsSchema>;
export type UserPostsParams = z.input<typeof userPostsParamsSchema>;
export type EngagementParams = z.input<typeof engagementParamsSchema>;

import { z } from 'zod';
import type { Logger } from '@hashwatch/logger';
import { X_ENDPOINTS, type XEndpoint } from './endpoints';
import { generatorOverridesSchema } from './generator/generator-options';

export const DEFAULT_APP_TOKEN = 'x-sim-app-token';
export const DEFAULT_USER_TOKEN = 'x-sim-user-token';

const limitOverride = z.object({ app: z.number().int().min(0).optional(), user: z.number().int().min(0).optional() }).strict();

/** How a simulator behaves. Only plain data here; the clock and logger are passed beside it. */
export const simulatorOptionsSchema = z
  .object({
    /** Field and key names to answer with: 2.166 (`retweet_count`, `referenced_tweets`...) or 2.167 (`repost_count`...). */
    naming: z.enum(['v2.166', 'v2.167']).default('v2.166'),
    appTokens: z.array(z.string().min(1)).min(1).default([DEFAULT_APP_TOKEN]),
    userTokens: z.array(z.string().min(1)).default([DEFAULT_USER_TOKEN]),
    /** Longest recent-search query: 512 on self-serve plans, 4096 on Enterprise. */
    maxQueryLength: z.number().int().min(1).max(4096).default(512),
    /** X's search stopped returning retweets on 2026-05-04; true brings back the older behaviour. */
    searchIncludesRetweets: z.boolean().default(false),
    rateLimitWindowSeconds: z.number().positive().max(86_400).default(15 * 60),
    rateLimits: z.partialRecord(z.enum(X_ENDPOINTS), limitOverride).default({}),
    /** Body of a 429 for the rate limit: X documents `{errors:[{code:88}]}`; live v2 also answers problem JSON. */
    rateLimitBody: z.enum(['code88', 'problem']).default('code88'),
    /** X keeps 100 liking accounts per post for all time. */
    likingUsersCap: z.number().int().min(0).default(100),
    /** A new post shows in search only this long after it is created (the index lag); timelines are immediate. */
    indexLagMs: z.number().int().min(0).default(0),
    /** Post reads allowed before every request answers 429 usage-capped; null means no cap. */
    postCap: z.number().int().min(0).nullable().default(null),
    /** Filtered-stream rules per app: 1,000 on pay-per-use (25,000+ on Enterprise). */
    streamMaxRules: z.number().int().min(0).max(1_000_000).default(1000),
    /** Longest filtered-stream rule, in characters: 1,024 on pay-per-use (2,048 on Enterprise). */
    streamRuleMaxLength: z.number().int().min(1).max(4096).default(1024),
    /** X writes a blank line (`\r\n`) into an open stream this often. */
    streamKeepAliveMs: z.number().int().min(1).max(3_600_000).default(20_000),
    /** Delay between a post's creation and its delivery on the stream. */
    streamLatencyMs: z.number().int().min(0).max(600_000).default(0),
    requestLogSize: z.number().int().min(0).default(10_000),
    generator: generatorOverridesSchema.default({}),
    /** Starts the generator with the app (the demo does; tests inject posts instead). */
    generatorAutoStart: z.boolean().default(false),
  })
  .strict();

export type SimulatorSettings = z.infer<typeof simulatorOptionsSchema>;
export type SimulatorOptions = z.input<typeof simulatorOptionsSchema> & {
  /** Milliseconds since the epoch; tests pass a clock they control. */
  now?: () => number;
  logger?: Logger;
};

export type { XEndpoint };

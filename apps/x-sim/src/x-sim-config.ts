import { z } from 'zod';
import { configSchema, envFlag, envPort } from '@hashwatch/config';

const tokenList = z.string().transform((value) => value.split(',').map((token) => token.trim()).filter(Boolean));

/**
 * The simulator's environment: its own X_SIM_* variables beside the suite's. It shares X_BEARER_TOKEN /
 * X_USER_TOKEN with the suite so the demo's workers are let in.
 */
export const envSchema = configSchema.extend({
  X_SIM_PORT: envPort.default(4100).describe("The X simulator's port."),
  X_SIM_HOST: z.string().min(1).default('0.0.0.0').describe("The address the X simulator listens on."),
  X_SIM_NAMING: z.enum(['v2.166', 'v2.167']).default('v2.166').describe("`v2.167` makes the X simulator answer with the new field names."),
  X_SIM_APP_TOKENS: tokenList
    .optional()
    .describe("Comma list of the app bearer tokens the X simulator accepts; default `X_BEARER_TOKEN`, else `x-sim-app-token`."),
  X_SIM_USER_TOKENS: tokenList
    .optional()
    .describe("Comma list of the user-context tokens the X simulator accepts; default `X_USER_TOKEN`, else `x-sim-user-token`."),
  // X itself takes any length up to the plan's limit; below the suite's minimum of 64 lets a test hit it.
  X_QUERY_MAX_LENGTH: z
    .coerce.number()
    .int()
    .min(1)
    .max(4096)
    .default(512)
    .describe("The longest search query the X simulator accepts (1 to 4096 here: below the suite's minimum of 64 lets a test hit the limit)."),
  X_SIM_GENERATOR: envFlag.default(true).describe("Whether the X simulator generates a stream of posts."),
  X_SIM_POSTS_PER_SECOND: z.coerce.number().min(0).max(10_000).default(5).describe("Posts the X simulator's generator creates per second."),
  X_SIM_RATE_WINDOW_SECONDS: z.coerce.number().positive().default(900).describe("The X simulator's rate-limit window, in seconds."),
  X_SIM_INDEX_LAG_MS: z.coerce.number().int().min(0).default(0).describe("Delay before a new post shows in the X simulator's search."),
  X_SIM_SEARCH_INCLUDES_RETWEETS: envFlag
    .default(false)
    .describe("Bring back retweets in the X simulator's search (X dropped them on 2026-05-04)."),
  // Filtered stream: pay-per-use limits by default (1,000 rules of 1,024 characters, a keep-alive every 20 s).
  X_SIM_STREAM_MAX_RULES: z
    .coerce.number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(1000)
    .describe("Filtered-stream rules per app in the X simulator (pay-per-use: 1,000)."),
  X_SIM_STREAM_RULE_MAX_LENGTH: z
    .coerce.number()
    .int()
    .min(1)
    .max(4096)
    .default(1024)
    .describe("The longest filtered-stream rule the X simulator accepts, in characters."),
  X_SIM_STREAM_KEEPALIVE_MS: z
    .coerce.number()
    .int()
    .min(1)
    .max(3_600_000)
    .default(20_000)
    .describe("How often an open stream of the X simulator gets a blank keep-alive line."),
  X_SIM_STREAM_LATENCY_MS: z
    .coerce.number()
    .int()
    .min(0)
    .max(600_000)
    .default(0)
    .describe("Delay between a post's creation and its delivery on the X simulator's stream."),
});

import { z } from 'zod';
import { configSchema, envFlag, envPort, loadConfig } from '@hashwatch/config';
import { createShutdown } from '@hashwatch/lifecycle';
import { createLogger } from '@hashwatch/logger';
import { createSimulator, serveSimulator, DEFAULT_APP_TOKEN, DEFAULT_USER_TOKEN } from '@hashwatch/x-simulator';

const tokenList = z.string().transform((value) => value.split(',').map((token) => token.trim()).filter(Boolean));

/**
 * The simulator's environment: its own X_SIM_* variables beside the suite's. It shares X_BEARER_TOKEN /
 * X_USER_TOKEN with the suite so the demo's workers are let in.
 */
const envSchema = configSchema.extend({
  X_SIM_PORT: envPort.default(4100),
  X_SIM_HOST: z.string().min(1).default('0.0.0.0'),
  X_SIM_NAMING: z.enum(['v2.166', 'v2.167']).default('v2.166'),
  X_SIM_APP_TOKENS: tokenList.optional(),
  X_SIM_USER_TOKENS: tokenList.optional(),
  // X itself takes any length up to the plan's limit; below the suite's minimum of 64 lets a test hit it.
  X_QUERY_MAX_LENGTH: z.coerce.number().int().min(1).max(4096).default(512),
  X_SIM_GENERATOR: envFlag.default(true),
  X_SIM_POSTS_PER_SECOND: z.coerce.number().min(0).max(10_000).default(5),
  X_SIM_RATE_WINDOW_SECONDS: z.coerce.number().positive().default(900),
  X_SIM_INDEX_LAG_MS: z.coerce.number().int().min(0).default(0),
  X_SIM_SEARCH_INCLUDES_RETWEETS: envFlag.default(false),
  // Filtered stream: pay-per-use limits by default (1,000 rules of 1,024 characters, a keep-alive every 20 s).
  X_SIM_STREAM_MAX_RULES: z.coerce.number().int().min(0).max(1_000_000).default(1000),
  X_SIM_STREAM_RULE_MAX_LENGTH: z.coerce.number().int().min(1).max(4096).default(1024),
  X_SIM_STREAM_KEEPALIVE_MS: z.coerce.number().int().min(1).max(3_600_000).default(20_000),
  X_SIM_STREAM_LATENCY_MS: z.coerce.number().int().min(0).max(600_000).default(0),
});

/** Composition root of the simulator process: configuration, the simulator on its port, and shutdown. */
async function main(): Promise<void> {
  const env = loadConfig(envSchema);
  const logger = createLogger('x-sim', { level: env.LOG_LEVEL });
  const simulator = createSimulator({
    naming: env.X_SIM_NAMING,
    appTokens: env.X_SIM_APP_TOKENS ?? [env.X_BEARER_TOKEN ?? DEFAULT_APP_TOKEN],
    userTokens: env.X_SIM_USER_TOKENS ?? [env.X_USER_TOKEN ?? DEFAULT_USER_TOKEN],
    maxQueryLength: env.X_QUERY_MAX_LENGTH,
    rateLimitWindowSeconds: env.X_SIM_RATE_WINDOW_SECONDS,
    indexLagMs: env.X_SIM_INDEX_LAG_MS,
    searchIncludesRetweets: env.X_SIM_SEARCH_INCLUDES_RETWEETS,
    streamMaxRules: env.X_SIM_STREAM_MAX_RULES,
    streamRuleMaxLength: env.X_SIM_STREAM_RULE_MAX_LENGTH,
    streamKeepAliveMs: env.X_SIM_STREAM_KEEPALIVE_MS,
    streamLatencyMs: env.X_SIM_STREAM_LATENCY_MS,
    generator: { postsPerSecond: env.X_SIM_POSTS_PER_SECOND },
    generatorAutoStart: env.X_SIM_GENERATOR,
    logger,
  });
  // Nothing to drain but open connections: past 5 s the process exits 1 rather than wait.
  const shutdown = createShutdown({ logger, timeoutMs: 5_000 });
  const running = await serveSimulator(simulator, { port: env.X_SIM_PORT, host: env.X_SIM_HOST });
  shutdown.onShutdown('simulator', () => {
    logger.info('x-sim stopping');
    return running.close();
  });
  shutdown.listen();
  logger.info('x-sim listening', { url: running.url, naming: env.X_SIM_NAMING, generator: env.X_SIM_GENERATOR });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});

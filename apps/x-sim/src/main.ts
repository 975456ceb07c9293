import { z } from 'zod';
import { createLogger } from '@hashwatch/logger';
import { createSimulator, serveSimulator, DEFAULT_APP_TOKEN, DEFAULT_USER_TOKEN } from '@hashwatch/x-simulator';

const flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
const tokenList = z.string().transform((value) => value.split(',').map((token) => token.trim()).filter(Boolean));

/** The simulator's environment. It shares X_BEARER_TOKEN / X_USER_TOKEN with the suite so the demo's workers are let in. */
const envSchema = z.object({
  X_SIM_PORT: z.coerce.number().int().min(0).max(65535).default(4100),
  X_SIM_HOST: z.string().min(1).default('0.0.0.0'),
  X_SIM_NAMING: z.enum(['v2.166', 'v2.167']).default('v2.166'),
  X_SIM_APP_TOKENS: tokenList.optional(),
  X_SIM_USER_TOKENS: tokenList.optional(),
  X_BEARER_TOKEN: z.string().min(1).optional(),
  X_USER_TOKEN: z.string().min(1).optional(),
  X_QUERY_MAX_LENGTH: z.coerce.number().int().min(1).max(4096).default(512),
  X_SIM_GENERATOR: flag.default(true),
  X_SIM_POSTS_PER_SECOND: z.coerce.number().min(0).max(10_000).default(5),
  X_SIM_RATE_WINDOW_SECONDS: z.coerce.number().positive().default(900),
  X_SIM_INDEX_LAG_MS: z.coerce.number().int().min(0).default(0),
  X_SIM_SEARCH_INCLUDES_RETWEETS: flag.default(false),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']).default('info'),
});

async function main(): Promise<void> {
  const present = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`).join('; ');
    throw new Error(`invalid environment: ${issues}`);
  }
  const env = parsed.data;
  const logger = createLogger('x-sim', { level: env.LOG_LEVEL });
  const simulator = createSimulator({
    naming: env.X_SIM_NAMING,
    appTokens: env.X_SIM_APP_TOKENS ?? [env.X_BEARER_TOKEN ?? DEFAULT_APP_TOKEN],
    userTokens: env.X_SIM_USER_TOKENS ?? [env.X_USER_TOKEN ?? DEFAULT_USER_TOKEN],
    maxQueryLength: env.X_QUERY_MAX_LENGTH,
    rateLimitWindowSeconds: env.X_SIM_RATE_WINDOW_SECONDS,
    indexLagMs: env.X_SIM_INDEX_LAG_MS,
    searchIncludesRetweets: env.X_SIM_SEARCH_INCLUDES_RETWEETS,
    generator: { postsPerSecond: env.X_SIM_POSTS_PER_SECOND },
    generatorAutoStart: env.X_SIM_GENERATOR,
    logger,
  });
  const running = await serveSimulator(simulator, { port: env.X_SIM_PORT, host: env.X_SIM_HOST });
  logger.info('x-sim listening', { url: running.url, naming: env.X_SIM_NAMING, generator: env.X_SIM_GENERATOR });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('x-sim stopping', { signal });
    const force = setTimeout(() => process.exit(1), 5_000);
    force.unref();
    void running.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});

import { loadConfig } from '@hashwatch/config';
import { createShutdown } from '@hashwatch/lifecycle';
import { createLogger } from '@hashwatch/logger';
import { createSimulator, serveSimulator, DEFAULT_APP_TOKEN, DEFAULT_USER_TOKEN } from '@hashwatch/x-simulator';
import { envSchema } from './x-sim-config';

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

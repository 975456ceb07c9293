export { startHealthServer } from './health-server';
export type { HealthServer, HealthServerOptions, CheckResult } from './health-server';
export { createShutdown } from './shutdown';
export type { Shutdown, ShutdownOptions } from './shutdown';
export { runMain } from './run-main';
export { METRICS_UNAUTHORIZED, metricsScrapeAllowed } from './metrics-token';

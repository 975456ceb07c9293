import { createMetricsRegistry, engagementMetrics, feedMetrics, queueWaitMetrics, xApiMetrics, type Registry } from '@hashwatch/metrics';

/** The poller's Prometheus series on a registry of its own, served on GET /metrics (HEALTH_PORT). */
export function createPollerMetrics(registry: Registry = createMetricsRegistry('engagement-poller')) {
  return { registry, ...engagementMetrics(registry), feed: feedMetrics(registry), x: xApiMetrics(registry), queue: queueWaitMetrics(registry) };
}

export type PollerMetrics = ReturnType<typeof createPollerMetrics>;

import { createMetricsRegistry, feedMetrics, queueWaitMetrics, scannerMetrics, xApiMetrics, type Registry } from '@hashwatch/metrics';

/** The scanner's Prometheus series on a registry of its own, served on GET /metrics (HEALTH_PORT). */
export function createScannerMetrics(registry: Registry = createMetricsRegistry('scanner')) {
  return { registry, ...scannerMetrics(registry), feed: feedMetrics(registry), x: xApiMetrics(registry), queue: queueWaitMetrics(registry) };
}

export type ScannerMetrics = ReturnType<typeof createScannerMetrics>;

import { collectDefaultMetrics, Registry } from 'prom-client';

/** The Content-Type of the text a registry renders (Prometheus text exposition 0.0.4). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * A Prometheus registry of one process: Node's default process metrics (CPU, memory, event loop lag, GC)
 * with every series labelled by the app, so one Prometheus job can scrape all of Hashwatch's pods.
 */
export function createMetricsRegistry(app: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  return registry;
}

import { createMetricsRegistry, deliveryMetrics, queueWaitMetrics, type DeliveryOutcome, type Registry } from '@hashwatch/metrics';

/** A counter with one label (the channel kind, or the feed item type). */
export interface LabelledCounter {
  inc(label: string, by?: number): void;
}

export interface NotifierMetrics {
  readonly registry: Registry;
  sends: LabelledCounter;
  delivered: LabelledCounter;
  retried: LabelledCounter;
  failed: LabelledCounter;
  /** Deliveries routing recorded as skipped (late alerts to chat platforms), by channel kind. */
  skipped: LabelledCounter;
  routed: LabelledCounter;
  /** How long a job waited in its queue before this replica took it. */
  observeWait(queue: string, seconds: number): void;
  /** Prometheus text exposition of the registry (default process metrics included). */
  render(): Promise<string>;
}

/**
 * The notifier's series for GET /metrics, per process (Prometheus sums the replicas): `hashwatch_deliveries_total`
 * by channel kind and outcome, the messages sent and the deliveries routed.
 */
export function createNotifierMetrics(registry: Registry = createMetricsRegistry('notifier')): NotifierMetrics {
  const { deliveries, sends, routed } = deliveryMetrics(registry);
  const { jobWait } = queueWaitMetrics(registry);
  const labelled = (inc: (label: string, by: number) => void): LabelledCounter => ({
    inc: (label, by = 1) => {
      if (by > 0) inc(label, by);
    },
  });
  const outcome = (value: DeliveryOutcome) => labelled((kind, by) => deliveries.inc({ kind, outcome: value }, by));
  return {
    registry,
    sends: labelled((kind, by) => sends.inc({ kind }, by)),
    delivered: outcome('delivered'),
    retried: outcome('retried'),
    failed: outcome('failed'),
    skipped: outcome('skipped'),
    routed: labelled((type, by) => routed.inc({ type }, by)),
    observeWait: (queue, seconds) => jobWait.observe({ queue }, seconds),
    render: () => registry.metrics(),
  };
}

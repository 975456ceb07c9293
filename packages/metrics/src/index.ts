export { createMetricsRegistry, METRICS_CONTENT_TYPE } from './registry';
export {
  httpMetrics,
  queueWaitMetrics,
  xApiMetrics,
  feedMetrics,
  deliveryMetrics,
  scannerMetrics,
  engagementMetrics,
  UNMATCHED_ROUTE,
  X_NO_RESPONSE_STATUS,
  DELIVERY_OUTCOMES,
} from './families';
export type { DeliveryOutcome } from './families';
export { queueJobsMetric, QUEUE_JOB_STATES } from './queue-jobs';
export type { QueueJobCounts } from './queue-jobs';
export { parsePrometheusText, sumSamples } from './prometheus-text';
export type { Sample } from './prometheus-text';
export type { Registry } from 'prom-client';

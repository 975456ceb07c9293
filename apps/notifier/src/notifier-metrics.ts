/** A counter with one label (the channel kind). */
export interface LabelledCounter {
  inc(label: string, by?: number): void;
}

export interface NotifierMetrics {
  sends: LabelledCounter;
  delivered: LabelledCounter;
  retried: LabelledCounter;
  failed: LabelledCounter;
  routed: LabelledCounter;
  /** Prometheus text exposition of every counter. */
  render(): string;
}

function counter(name: string, help: string, label: string) {
  const values = new Map<string, number>();
  return {
    inc(value: string, by = 1) {
      if (by > 0) values.set(value, (values.get(value) ?? 0) + by);
    },
    render(): string {
      const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} counter`];
      for (const [value, count] of values) lines.push(`${name}{${label}="${value}"} ${count}`);
      return lines.join('\n');
    },
  };
}

/** The notifier's counters for GET /metrics, per process (Prometheus sums the replicas). */
export function createNotifierMetrics(): NotifierMetrics {
  const counters = {
    sends: counter('hashwatch_notifier_sends_total', 'Messages sent to destinations (single alerts and digests).', 'kind'),
    delivered: counter('hashwatch_notifier_deliveries_delivered_total', 'Deliveries marked delivered.', 'kind'),
    retried: counter('hashwatch_notifier_deliveries_retried_total', 'Delivery attempts that will be retried.', 'kind'),
    failed: counter('hashwatch_notifier_deliveries_failed_total', 'Deliveries that failed for good.', 'kind'),
    routed: counter('hashwatch_notifier_deliveries_routed_total', 'Deliveries created by routing.', 'type'),
  };
  return {
    ...counters,
    render: () => `${Object.values(counters).map((c) => c.render()).join('\n')}\n`,
  };
}

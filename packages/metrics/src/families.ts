import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

// Every metric family of Hashwatch: its name, help and label names live here once, and each app creates the
// families it serves on its own registry (never the global one: several apps may share a test process).
// Label values always come from bounded sets (routes, queue names, X endpoint names, channel kinds, feed item
// types): never an account id, a tag, a channel id or a URL.

/** Request latency buckets: the feed answers in a few ms, a checkout in a few hundred. */
const HTTP_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Queue wait buckets: an alert waits milliseconds on a healthy notifier, a backlog minutes. */
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600];

/** The route label of a request no route matched (404s, the dashboard's files and its fallback). */
export const UNMATCHED_ROUTE = 'unmatched';
/** The status label of an X call that got no HTTP answer (network error, timeout). */
export const X_NO_RESPONSE_STATUS = 'error';
/**
 * What the notifier counts per delivery: delivered, retried (a later attempt follows), failed for good, or skipped
 * (never sent: a late alert to a chat platform).
 */
export const DELIVERY_OUTCOMES = ['delivered', 'retried', 'failed', 'skipped'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** The gateway's request latency, by matched route pattern. */
export function httpMetrics(registry: Registry) {
  return {
    requestDuration: new Histogram({
      name: 'hashwatch_http_request_duration_seconds',
      help: 'Gateway request latency, by matched route pattern, method and numeric status.',
      labelNames: ['route', 'method', 'status'] as const,
      buckets: HTTP_BUCKETS,
      registers: [registry],
    }),
  };
}

/** How long jobs waited in their queue before a worker took them, observed by the workers. */
export function queueWaitMetrics(registry: Registry) {
  return {
    jobWait: new Histogram({
      name: 'hashwatch_queue_job_wait_seconds',
      help: 'Time from a job being due (added, or its delay over) to a worker taking it, first attempts only.',
      labelNames: ['queue'] as const,
      buckets: WAIT_BUCKETS,
      registers: [registry],
    }),
  };
}

/** Every call the X client made (retries included) and the budget X reported left, by endpoint. */
export function xApiMetrics(registry: Registry) {
  const requests = new Counter({
    name: 'hashwatch_x_requests_total',
    help: `Calls to X API v2, retries included, by endpoint and numeric HTTP status ("${X_NO_RESPONSE_STATUS}": no answer).`,
    labelNames: ['endpoint', 'status'] as const,
    registers: [registry],
  });
  const rateLimitRemaining = new Gauge({
    name: 'hashwatch_x_rate_limit_remaining',
    help: 'Requests left in the current X rate-limit window, from the last x-rate-limit-remaining header seen.',
    labelNames: ['endpoint'] as const,
    registers: [registry],
  });
  return {
    requests,
    rateLimitRemaining,
    /** The observer the X client takes (XClientOptions.observer): one call per HTTP request it made. */
    observer: {
      request(endpoint: string, status: number | null, remaining: number | null): void {
        requests.inc({ endpoint, status: status === null ? X_NO_RESPONSE_STATUS : String(status) });
        if (remaining !== null) rateLimitRemaining.set({ endpoint }, remaining);
      },
    },
  };
}

/** Feed items stored, by feed item type (hashtag, account, engagement). */
export function feedMetrics(registry: Registry) {
  return {
    itemsStored: new Counter({
      name: 'hashwatch_feed_items_stored_total',
      help: 'Feed items stored (each with its alert job), by feed item type.',
      labelNames: ['type'] as const,
      registers: [registry],
    }),
  };
}

/** The notifier's deliveries, sends and routing. */
export function deliveryMetrics(registry: Registry) {
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  return {
    deliveries: counter('hashwatch_deliveries_total', `Deliveries by channel kind and outcome (${DELIVERY_OUTCOMES.join(', ')}).`, ['kind', 'outcome']),
    sends: counter('hashwatch_notifier_sends_total', 'Messages sent to destinations (single alerts and digests), by channel kind.', ['kind']),
    routed: counter('hashwatch_notifier_deliveries_routed_total', 'Deliveries created by routing, by feed item type.', ['type']),
  };
}

/** The scanner's own work besides X calls and feed writes. */
export function scannerMetrics(registry: Registry) {
  const counter = (name: string, help: string) => new Counter({ name, help, registers: [registry] });
  const families = {
    ticks: counter('hashwatch_scanner_ticks_total', 'Scan ticks run.'),
    sourcesScanned: counter('hashwatch_scanner_sources_scanned_total', 'Sources whose scan succeeded.'),
    postsRead: counter('hashwatch_scanner_posts_read_total', 'Posts X billed for the recent-search calls.'),
    itemsMerged: counter('hashwatch_scanner_items_merged_total', 'Existing feed items that gained a source.'),
    itemsOverQuota: counter('hashwatch_scanner_items_over_quota_total', 'New feed items not stored because the alert quota was used up.'),
    packFailures: counter('hashwatch_scanner_pack_failures_total', 'Packed queries that failed (the cycle is redone).'),
    streamConnected: new Gauge({ name: 'hashwatch_scanner_stream_connected', help: '1 while this replica holds an open filtered-stream connection.', registers: [registry] }),
    streamRules: new Gauge({ name: 'hashwatch_scanner_stream_rules', help: 'Filtered-stream rules of the service on X (as the holder last synced them).', registers: [registry] }),
    streamSources: new Gauge({ name: 'hashwatch_scanner_stream_sources', help: 'Sources the filtered-stream rules cover (the rest are searched).', registers: [registry] }),
    streamPostsReceived: counter('hashwatch_scanner_stream_posts_received_total', 'Posts the filtered stream delivered.'),
    streamPostsStored: counter('hashwatch_scanner_stream_posts_stored_total', 'Streamed posts whose batch committed.'),
    streamDisconnects: counter('hashwatch_scanner_stream_disconnects_total', 'Filtered-stream connections that ended after they were made.'),
    streamConnectFailures: new Counter<'kind'>({
      name: 'hashwatch_scanner_stream_connect_failures_total',
      help: 'Filtered-stream connects that failed, by back-off kind (network, http, rate_limited).',
      labelNames: ['kind'],
      registers: [registry],
    }),
    gapsFilled: counter('hashwatch_scanner_stream_gaps_filled_total', 'Windows the stream missed, back-filled by search.'),
  };
  // Every kind at zero from the start, so a dashboard plots a flat line rather than no series.
  for (const kind of ['network', 'http', 'rate_limited']) families.streamConnectFailures.inc({ kind }, 0);
  return families;
}

/** The engagement poller's cycles, refreshes and samples. */
export function engagementMetrics(registry: Registry) {
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  return {
    cycles: counter('hashwatch_engagement_cycles_total', 'Refresh cycles run, by result (ok, error).', ['result']),
    cycleSeconds: new Gauge({ name: 'hashwatch_engagement_cycle_seconds', help: 'Duration of the last refresh cycle.', registers: [registry] }),
    postsRefreshed: counter('hashwatch_engagement_posts_refreshed_total', 'Tracked posts whose counts were read from X.'),
    postsChanged: counter('hashwatch_engagement_posts_changed_total', 'Refreshed posts whose counts changed.'),
    postsRecomputed: counter('hashwatch_engagement_posts_recomputed_total', 'Refreshed posts that went through the full recompute.'),
    newEngagers: counter('hashwatch_engagement_new_engagers_total', 'Accounts seen engaging for the first time, by engagement kind.', ['kind']),
    items: counter('hashwatch_engagement_items_total', 'Engagement feed items stored, by engagement kind (also in hashwatch_feed_items_stored_total).', ['kind']),
    droppedForQuota: counter('hashwatch_engagement_dropped_for_quota_total', 'Engagement items not stored because the alert quota was used up.'),
    heldBack: counter('hashwatch_engagement_held_back_total', 'Times X refused for now (rate limit, usage cap), by X endpoint.', ['endpoint']),
  };
}

import { createMetricsRegistry } from './registry';
import { deliveryMetrics, engagementMetrics, feedMetrics, httpMetrics, queueWaitMetrics, scannerMetrics, xApiMetrics } from './families';
import { parsePrometheusText, sumSamples } from './prometheus-text';
import { queueJobsMetric } from './queue-jobs';

async function scrape(registry: ReturnType<typeof createMetricsRegistry>) {
  return parsePrometheusText(await registry.metrics());
}

describe('metric families', () => {
  it('names each CONTRACT series with its exact label names', async () => {
    const registry = createMetricsRegistry('test');
    httpMetrics(registry).requestDuration.observe({ route: '/v1/tracks/:id', method: 'GET', status: '200' }, 0.01);
    xApiMetrics(registry).observer.request('search_recent', 200, 449);
    deliveryMetrics(registry).deliveries.inc({ kind: 'webhook', outcome: 'delivered' }, 3);
    feedMetrics(registry).itemsStored.inc({ type: 'hashtag' }, 2);
    const samples = await scrape(registry);
    const labelsOf = (name: string) => samples.find((sample) => sample.name === name)?.labels;
    expect(labelsOf('hashwatch_http_request_duration_seconds_count')).toEqual({ app: 'test', route: '/v1/tracks/:id', method: 'GET', status: '200' });
    expect(labelsOf('hashwatch_x_requests_total')).toEqual({ app: 'test', endpoint: 'search_recent', status: '200' });
    expect(labelsOf('hashwatch_x_rate_limit_remaining')).toEqual({ app: 'test', endpoint: 'search_recent' });
    expect(labelsOf('hashwatch_deliveries_total')).toEqual({ app: 'test', kind: 'webhook', outcome: 'delivered' });
    expect(labelsOf('hashwatch_feed_items_stored_total')).toEqual({ app: 'test', type: 'hashtag' });
    expect(sumSamples(samples, 'hashwatch_deliveries_total', { outcome: 'delivered' })).toBe(3);
  });

  it('counts an X call with no answer under a fixed status and keeps the last remaining budget', async () => {
    const registry = createMetricsRegistry('test');
    const x = xApiMetrics(registry);
    x.observer.request('posts_lookup', 200, 10);
    x.observer.request('posts_lookup', null, null);
    x.observer.request('posts_lookup', 429, 0);
    const samples = await scrape(registry);
    expect(sumSamples(samples, 'hashwatch_x_requests_total', { endpoint: 'posts_lookup' })).toBe(3);
    expect(sumSamples(samples, 'hashwatch_x_requests_total', { status: 'error' })).toBe(1);
    expect(sumSamples(samples, 'hashwatch_x_rate_limit_remaining', { endpoint: 'posts_lookup' })).toBe(0);
  });

  it('creates every family on one registry without a name clash, each app on its own', async () => {
    const registry = createMetricsRegistry('all');
    for (const create of [httpMetrics, queueWaitMetrics, xApiMetrics, feedMetrics, deliveryMetrics, scannerMetrics, engagementMetrics]) create(registry);
    const names = registry.getMetricsAsArray().map((metric) => metric.name).filter((name) => name.startsWith('hashwatch_'));
    expect(names.every((name) => /^hashwatch_[a-z_]+$/.test(name))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    // A second app in the same process gets the same families again on its own registry.
    expect(() => scannerMetrics(createMetricsRegistry('other'))).not.toThrow();
  });
});

describe('queueJobsMetric', () => {
  it('reads every queue at scrape time and leaves out a queue that fails', async () => {
    const registry = createMetricsRegistry('gateway');
    let waiting = 4;
    const errors: string[] = [];
    queueJobsMetric(
      registry,
      [
        { name: 'alert-routing', getJobCounts: async (...states) => Object.fromEntries(states.map((state) => [state, state === 'waiting' ? waiting : 1])) },
        { name: 'broken', getJobCounts: () => Promise.reject(new Error('redis down')) },
      ],
      (queue) => errors.push(queue),
    );
    let samples = await scrape(registry);
    expect(sumSamples(samples, 'hashwatch_queue_jobs', { queue: 'alert-routing', state: 'waiting' })).toBe(4);
    expect(sumSamples(samples, 'hashwatch_queue_jobs', { queue: 'alert-routing', state: 'prioritized' })).toBe(1);
    expect(samples.some((sample) => sample.labels.queue === 'broken')).toBe(false);
    expect(errors).toEqual(['broken']);
    waiting = 0;
    samples = await scrape(registry);
    expect(sumSamples(samples, 'hashwatch_queue_jobs', { queue: 'alert-routing', state: 'waiting' })).toBe(0);
  });
});

describe('parsePrometheusText', () => {
  it('reads escaped label values and skips comments', () => {
    expect(parsePrometheusText('# HELP a b\na_total{x="q\\"uo\\\\te",y="2"} 5\nb 1.5e3\n')).toEqual([
      { name: 'a_total', labels: { x: 'q"uo\\te', y: '2' }, value: 5 },
      { name: 'b', labels: {}, value: 1500 },
    ]);
  });
});

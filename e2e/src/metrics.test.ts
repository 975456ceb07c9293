import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parsePrometheusText, sumSamples, type Sample } from '@hashwatch/metrics';
import { waitFor } from '@hashwatch/testing';
import { REPO_ROOT } from './harness/apps';
import { deliveryViolations, waitForDeliveries, type WatchedChannel } from './harness/delivery-check';
import { Suite } from './harness/suite';
import { postBurst, watchTags } from './harness/watch-tags';

const POSTS = 12;
const DASHBOARD = path.join(REPO_ROOT, 'infra/grafana/hashwatch.json');

/** CONTRACT section 7: each series and its label names (besides `app`, and `le` of histogram buckets). */
const CONTRACT_SERIES: Record<string, string[]> = {
  hashwatch_http_request_duration_seconds_count: ['method', 'route', 'status'],
  hashwatch_queue_jobs: ['queue', 'state'],
  hashwatch_x_requests_total: ['endpoint', 'status'],
  hashwatch_x_rate_limit_remaining: ['endpoint'],
  hashwatch_deliveries_total: ['kind', 'outcome'],
  hashwatch_feed_items_stored_total: ['type'],
};

/** Every metric name an expression of the Grafana dashboard reads. */
function dashboardMetricNames(): string[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
  const exprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
  const names = exprs.flatMap((expr) => expr.match(/\b(?:hashwatch|process|nodejs)_[a-z0-9_]+\b/g) ?? []);
  return [...new Set(names)].sort();
}

/**
 * Every app serves Prometheus metrics: after a small scenario (posts in x-sim, alerts delivered to a local
 * webhook receiver) the scrapes of the gateway and the three workers agree with what happened, and every
 * series the Grafana dashboard plots is exposed by some app.
 */
describe('metrics of every app', () => {
  let suite: Suite | undefined;
  let channels: WatchedChannel[] = [];

  afterAll(async () => {
    await Promise.allSettled(channels.map((channel) => channel.receiver.close()));
    await suite?.stop();
  });

  async function scrapeAll(running: Suite): Promise<Map<string, Sample[]>> {
    const apps = running.apps.filter((handle) => handle.app !== 'x-sim' && handle.isRunning());
    const scrapes = await Promise.all(
      apps.map(async (handle) => {
        const res = await fetch(`http://127.0.0.1:${handle.port}/metrics`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
        return [handle.app, parsePrometheusText(await res.text())] as const;
      }),
    );
    return new Map(scrapes);
  }

  it('counts what the scenario did, with the CONTRACT series and every series the dashboard plots', async () => {
    suite = await Suite.start();
    const running = suite;
    channels = await watchTags(running, ['e2emetrics'], [{ name: 'every-source', hashtags: [] }]);
    const posts = await postBurst(running, POSTS, ['e2emetrics']);
    const check = await waitForDeliveries(running, posts, channels, 60_000);
    expect(deliveryViolations(check, { allowSameIdRedelivery: false })).toEqual([]);
    const accepted = channels.reduce((total, channel) => total + channel.receiver.accepted().length, 0);
    expect(accepted).toBe(POSTS);

    // The notifier counts a delivery once its outcome is written, just after the receiver answered.
    let scrapes = new Map<string, Sample[]>();
    const all = () => [...scrapes.values()].flat();
    await waitFor(
      async () => {
        scrapes = await scrapeAll(running);
        return sumSamples(all(), 'hashwatch_deliveries_total', { outcome: 'delivered' }) >= accepted;
      },
      15_000,
      'the notifier to count the deliveries',
    );
    const searchesBefore = (await running.xsim.requests('search_recent')).length;
    scrapes = await scrapeAll(running);
    const searchesAfter = (await running.xsim.requests('search_recent')).length;

    expect([...scrapes.keys()].sort()).toEqual(['engagement-poller', 'gateway', 'notifier', 'scanner']);
    for (const [app, samples] of scrapes) {
      expect(samples.some((sample) => sample.name === 'process_cpu_user_seconds_total' && sample.labels.app === app)).toBe(true);
    }
    for (const [name, labelNames] of Object.entries(CONTRACT_SERIES)) {
      const found = all().filter((sample) => sample.name === name);
      expect({ name, present: found.length > 0 }).toEqual({ name, present: true });
      for (const sample of found) expect({ name, labels: Object.keys(sample.labels).filter((key) => key !== 'app').sort() }).toEqual({ name, labels: labelNames });
    }
    expect(sumSamples(all(), 'hashwatch_deliveries_total', { outcome: 'delivered' })).toBe(accepted);
    expect(sumSamples(all(), 'hashwatch_deliveries_total', { outcome: 'failed' })).toBe(0);
    expect(sumSamples(all(), 'hashwatch_feed_items_stored_total', { type: 'hashtag' })).toBe(POSTS);
    const searches = sumSamples(all(), 'hashwatch_x_requests_total', { endpoint: 'search_recent' });
    // x-sim logs a search as it answers; the scanner counts it once the answer is in, at most 4 (its pack
    // concurrency) in flight.
    expect(searches).toBeGreaterThan(0);
    expect(searches).toBeLessThanOrEqual(searchesAfter);
    expect(searches).toBeGreaterThanOrEqual(searchesBefore - 4);
    expect(all().some((sample) => sample.name === 'hashwatch_x_rate_limit_remaining' && sample.labels.endpoint === 'search_recent')).toBe(true);
    const queues = new Set(scrapes.get('gateway')!.filter((sample) => sample.name === 'hashwatch_queue_jobs').map((sample) => sample.labels.queue));
    expect(queues).toContain('alert-deliveries');
    expect(scrapes.get('notifier')!.some((sample) => sample.name === 'hashwatch_queue_job_wait_seconds_count' && sample.labels.queue === 'alert-routing')).toBe(true);

    const exposed = new Set(all().map((sample) => sample.name));
    const plotted = dashboardMetricNames();
    expect(plotted.length).toBeGreaterThan(8);
    expect(plotted.filter((name) => !exposed.has(name))).toEqual([]);
  });
});

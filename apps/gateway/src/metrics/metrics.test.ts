import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Express } from 'express';
import request from 'supertest';
import { parsePrometheusText, sumSamples, type Sample } from '@hashwatch/metrics';
import { createQueues, createRedisConnection, enqueue, type Queues, type RedisClient } from '@hashwatch/queues';
import { createApp } from '../app';
import { useGateway } from '../test-support/gateway-harness';
import { createGatewayMetrics } from './gateway-metrics';

const DURATION = 'hashwatch_http_request_duration_seconds_count';

describe('GET /metrics', () => {
  const gw = useGateway();
  let app: Express;
  let server: Server;
  let base = '';
  let connection: RedisClient;
  let queues: Queues;

  beforeAll(async () => {
    connection = createRedisConnection(gw.env.redisTarget, { role: 'producer' });
    queues = createQueues({ connection, prefix: gw.env.queuePrefix });
    app = createApp({ ...gw.deps, metrics: createGatewayMetrics({ logger: gw.deps.logger, queues }) });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await queues.close();
    connection.disconnect();
  });

  async function scrape(): Promise<Sample[]> {
    const res = await request(app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['cache-control']).toBe('no-store');
    return parsePrometheusText(res.text);
  }

  const routes = (samples: Sample[]) => new Set(samples.filter((s) => s.name === DURATION).map((s) => s.labels.route));

  it('serves process metrics labelled gateway, with no key and outside the rate limits', async () => {
    for (let i = 0; i < 3; i += 1) await request(app).get('/metrics').expect(200);
    const samples = await scrape();
    expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total' && s.labels.app === 'gateway')).toBe(true);
  });

  it('labels requests with the matched route pattern, the fast feed route included', async () => {
    const { auth } = await gw.account();
    // A route that throws (404 for an unknown delivery) keeps its mount path in the label.
    await request(app).post('/v1/notifications/deliveries/dlv_doesnotexist/retry').set(auth).expect(404);
    await request(app).get('/v1/posts').set(auth).expect(200);
    await request(app).get('/healthz').expect(200);
    const samples = await scrape();
    expect(sumSamples(samples, DURATION, { route: '/v1/notifications/deliveries/:id/retry', method: 'POST', status: '404' })).toBe(1);
    expect(sumSamples(samples, DURATION, { route: '/v1/posts', method: 'GET', status: '200' })).toBe(1);
    expect(sumSamples(samples, DURATION, { route: '/healthz', method: 'GET', status: '200' })).toBe(1);
  });

  it('labels a mount typed in any case with the route pattern, so casing cannot grow the label set', async () => {
    const { auth } = await gw.account();
    for (const path of ['/V1/posts', '/v1/Posts', '/V1/ME', '/v1/me']) await request(app).get(path).set(auth);
    const labels = [...routes(await scrape())];
    expect(labels.filter((route) => route !== route?.toLowerCase())).toEqual([]);
    expect(sumSamples(await scrape(), DURATION, { route: '/v1/me', method: 'GET' })).toBeGreaterThanOrEqual(2);
  });

  it('adds no label value for 1000 distinct unknown URLs', async () => {
    const before = routes(await scrape());
    const unmatchedBefore = sumSamples(await scrape(), DURATION, { route: 'unmatched' });
    const paths = Array.from({ length: 1000 }, (_, i) => [`/v1/nothing-${i}`, `/nope/${i}?q=${i}`, `/assets/x-${i}.js`, `/watch/${i}`][i % 4] as string);
    for (let i = 0; i < paths.length; i += 50) {
      await Promise.all(paths.slice(i, i + 50).map(async (path) => (await fetch(base + path)).arrayBuffer()));
    }
    const after = await scrape();
    expect([...routes(after)].filter((route) => !before.has(route))).toEqual(before.has('unmatched') ? [] : ['unmatched']);
    expect(sumSamples(after, DURATION, { route: 'unmatched' }) - unmatchedBefore).toBe(1000);
  });

  it('reports every queue of the catalog by state, read from Redis at scrape time', async () => {
    await enqueue(queues, 'alert-routing', 'route-alerts', { items: [{ feedItemId: 'post_metrics1', userId: 'usr_metrics1' }] }, { jobId: 'metrics-backlog' });
    const samples = await scrape();
    expect(sumSamples(samples, 'hashwatch_queue_jobs', { queue: 'alert-routing', state: 'waiting' })).toBe(1);
    const queuesSeen = new Set(samples.filter((s) => s.name === 'hashwatch_queue_jobs').map((s) => s.labels.queue));
    expect([...queuesSeen].sort()).toEqual(Object.keys(queues.byName).sort());
  });

  it('needs Authorization: Bearer <METRICS_TOKEN> when the token is set: 401 otherwise, and the API stays as it was', async () => {
    const token = 'metrics-token-of-some-length';
    const guarded = createApp({ ...gw.deps, metricsToken: token });
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, `Basic ${token}`]) {
      const scrapeWith = request(guarded).get('/metrics');
      const res = await (authorization === undefined ? scrapeWith : scrapeWith.set('Authorization', authorization)).expect(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(res.body).toEqual({ error: { code: 'unauthorized', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' } });
      expect(res.text).not.toContain('process_cpu_user_seconds_total');
    }
    const allowed = await request(guarded).get('/metrics').set('Authorization', `Bearer ${token}`).expect(200);
    expect(allowed.text).toContain('process_cpu_user_seconds_total');
    await request(guarded).get('/healthz').expect(200);
  });
});

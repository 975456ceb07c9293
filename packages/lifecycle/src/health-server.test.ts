import { startHealthServer, type HealthServer, type HealthServerOptions } from './health-server';
import { captureLogger } from '@hashwatch/testing';

describe('startHealthServer', () => {
  const servers: HealthServer[] = [];
  const { logger, lines } = captureLogger();

  async function start(options: Partial<HealthServerOptions> = {}): Promise<string> {
    const server = await startHealthServer({ port: 0, host: '127.0.0.1', checks: {}, logger, ...options });
    servers.push(server);
    return `http://127.0.0.1:${server.port}`;
  }

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    lines.length = 0;
  });

  it('answers GET /healthz 200 {"status":"ok"} on a port chosen by the system', async () => {
    const base = await start();
    expect(base).not.toMatch(/:0$/);
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers /healthz and /readyz 503 once the process is shutting down', async () => {
    let shuttingDown = false;
    const check = jest.fn(async () => undefined);
    const base = await start({ checks: { redis: check }, isShuttingDown: () => shuttingDown });
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    shuttingDown = true;
    const health = await fetch(`${base}/healthz`);
    const ready = await fetch(`${base}/readyz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'shutting_down' });
    expect(ready.status).toBe(503);
    expect(check).toHaveBeenCalledTimes(1);
  });

  it('answers /readyz 200 with every check when all pass', async () => {
    const base = await start({ checks: { redis: async () => undefined, database: async () => undefined } });
    const response = await fetch(`${base}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', checks: { redis: { status: 'ok' }, database: { status: 'ok' } } });
  });

  it('answers /readyz 503 naming the failing and timed-out checks, without secrets from their errors', async () => {
    const base = await start({
      checkTimeoutMs: 50,
      checks: {
        redis: async () => undefined,
        database: async () => {
          throw new Error('connect to postgresql://hashwatch:hunter2@db:5432/hw failed with Bearer hw_live_abcdefgh\nat stack line');
        },
        x: () => new Promise<void>(() => undefined),
      },
    });
    const response = await fetch(`${base}/readyz`);
    const text = await response.text();

    expect(response.status).toBe(503);
    const body = JSON.parse(text);
    expect(body.status).toBe('not_ready');
    expect(body.failing).toEqual(['database', 'x']);
    expect(body.checks.redis).toEqual({ status: 'ok' });
    expect(body.checks.x).toEqual({ status: 'failed', message: 'timed out after 50 ms' });
    expect(body.checks.database.status).toBe('failed');
    expect(body.checks.database.message.length).toBeLessThanOrEqual(120);
    for (const secret of ['hunter2', 'abcdefgh', 'stack line']) expect(text).not.toContain(secret);
  });

  it('logs a failing check once, not on every probe, and logs its recovery', async () => {
    let healthy = false;
    const base = await start({
      checks: {
        redis: async () => {
          if (!healthy) throw new Error('ECONNREFUSED');
        },
      },
    });
    await fetch(`${base}/readyz`);
    await fetch(`${base}/readyz`);
    healthy = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    expect(lines.map((line) => line.message)).toEqual(['readiness check failed', 'readiness check recovered']);
    expect(lines[0]).toMatchObject({ check: 'redis', reason: 'ECONNREFUSED', level: 'warn' });
  });

  it('serves the metrics callback as Prometheus text on /metrics', async () => {
    const base = await start({ metrics: async () => '# TYPE hw_jobs_total counter\nhw_jobs_total 3\n' });
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await response.text()).toBe('# TYPE hw_jobs_total counter\nhw_jobs_total 3\n');
  });

  it('needs Authorization: Bearer <METRICS_TOKEN> on /metrics when a token is set, and leaves the probes open', async () => {
    const token = 'metrics-token-of-some-length';
    const base = await start({ metrics: async () => 'hw_jobs_total 3\n', metricsToken: token });
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${token}x`, `Basic ${token}`, token]) {
      const response = await fetch(`${base}/metrics`, { headers: authorization === undefined ? {} : { authorization } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await response.json()).toEqual({ error: { code: 'unauthorized', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' } });
    }
    const allowed = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toBe('hw_jobs_total 3\n');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it('answers 500 without details when the metrics callback throws', async () => {
    const base = await start({ metrics: () => { throw new Error('registry broken'); } });
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: 'internal_error', message: 'metrics unavailable' } });
  });

  it('answers 404 JSON for /metrics without a callback and for unknown paths, 405 for other methods', async () => {
    const base = await start();
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(404);
    expect(await metrics.json()).toEqual({ error: { code: 'not_found', message: 'no metrics here' } });

    const unknown = await fetch(`${base}/nope?x=1`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: 'not_found', message: 'no such endpoint' } });

    const post = await fetch(`${base}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('stops listening once closed, and close is idempotent', async () => {
    const server = await startHealthServer({ port: 0, host: '127.0.0.1', checks: {}, logger });
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await Promise.all([server.close(), server.close()]);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  it('rejects when the port is already taken', async () => {
    const base = await start();
    const port = Number(new URL(base).port);
    await expect(startHealthServer({ port, host: '127.0.0.1', checks: {}, logger })).rejects.toThrow(/EADDRINUSE/);
  });
});

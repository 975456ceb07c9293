import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { issueApiKey } from '@hashwatch/accounts';
import express from 'express';
import helmet from 'helmet';
import { Redis } from 'ioredis';
import { createDatabase } from '@hashwatch/db';
import { createApp } from './app';
import { request, useGateway } from './test-support/gateway-harness';

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

function expectRateHeaders(res: { headers: Record<string, string> }): void {
  for (const name of RATE_HEADERS) expect(res.headers[name]).toMatch(/^\d+$/);
  const reset = Number(res.headers['x-ratelimit-reset']);
  expect(reset).toBeGreaterThan(Date.now() / 1000 - 1);
  expect(reset).toBeLessThan(Date.now() / 1000 + 3600);
}

describe('authentication', () => {
  const gw = useGateway();

  it.each([
    ['no Authorization header', {}],
    ['a wrong key', { Authorization: 'Bearer hw_live_notakey' }],
    ['a non-bearer scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty bearer', { Authorization: 'Bearer ' }],
  ])('answers 401 unauthorized in the error shape for %s', async (_name, headers) => {
    const res = await request(gw.app).get('/v1/tracks').set(headers);
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  });

  it('authenticates before reading the body: a bad key with a huge body answers 401, not 413', async () => {
    const res = await request(gw.app).post('/v1/tracks').set({ Authorization: 'Bearer nope', 'Content-Type': 'application/json' }).send('x'.repeat(100_000));
    expect(res.status).toBe(401);
  });

  it('limits failed authentications per client IP to 60 a minute, without affecting a valid key', async () => {
    const { auth } = await gw.account('business');
    const earlier = await gw.env.redis.keys(`${gw.env.queuePrefix}:rl:authfail*`);
    if (earlier.length > 0) await gw.env.redis.del(...earlier);
    const statuses: number[] = [];
    for (let i = 0; i < 61; i += 1) statuses.push((await request(gw.app).get('/v1/tracks').set({ Authorization: `Bearer wrong${i}` })).status);
    expect(statuses.slice(0, 60).every((s) => s === 401)).toBe(true);
    const limited = await request(gw.app).get('/v1/tracks').set({ Authorization: 'Bearer wrong-again' });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    await request(gw.app).get('/v1/tracks').set(auth).expect(200);
    await gw.env.redis.del(...(await gw.env.redis.keys(`${gw.env.queuePrefix}:rl:authfail*`)));
  });
});

describe('rate limits', () => {
  const gw = useGateway();

  it('puts the rate-limit headers on every answer to a valid key: 200, 201, 400, 403, 404, 409, 413', async () => {
    const { auth } = await gw.account('business');
    const answers = [
      await request(gw.app).get('/v1/tracks').set(auth),
      await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' }),
      await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: '#btc' }),
      await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' }),
      await request(gw.app).get('/v1/nothing-here').set(auth),
      await request(gw.app).post('/v1/tracks').set(auth).set('Content-Type', 'application/json').send(`{"hashtag":"${'a'.repeat(70_000)}"}`),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 201, 400, 409, 404, 413]);
    for (const res of answers) expectRateHeaders(res);
    const limits = answers.map((r) => Number(r.headers['x-ratelimit-remaining']));
    expect(limits).toEqual([599, 598, 597, 596, 595, 594]);
    expect(answers[0]?.headers['x-ratelimit-limit']).toBe('600');
  });

  it('puts the rate-limit headers on a 403 plan_limit_reached answer', async () => {
    const { accountId, auth } = await gw.account('starter');
    await gw.env.database.db.prisma.user.update({ where: { id: accountId }, data: { hashtagsLimit: 0 } });
    const res = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('plan_limit_reached');
    expectRateHeaders(res);
    expect(res.headers['x-ratelimit-remaining']).toBe('59');
  });

  it("answers 429 rate_limited with Retry-After past the plan's per-minute cap", async () => {
    const { accountId, auth } = await gw.account('starter');
    await gw.env.database.db.prisma.user.update({ where: { id: accountId }, data: { rateLimitPerMinute: 3 } });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await request(gw.app).get('/v1/tracks').set(auth)).status);
    expect(statuses).toEqual([200, 200, 200]);
    const res = await request(gw.app).get('/v1/tracks').set(auth);
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    expectRateHeaders(res);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('shares one count between two gateway replicas on the same Redis', async () => {
    const { accountId, auth } = await gw.account('starter');
    await gw.env.database.db.prisma.user.update({ where: { id: accountId }, data: { rateLimitPerMinute: 4 } });
    const replica = createApp({ ...gw.deps });
    await request(gw.app).get('/v1/tracks').set(auth).expect(200);
    await request(replica).get('/v1/tracks').set(auth).expect(200);
    await request(gw.app).get('/v1/tracks').set(auth).expect(200);
    await request(replica).get('/v1/tracks').set(auth).expect(200);
    expect((await request(replica).get('/v1/tracks').set(auth)).status).toBe(429);
    expect((await request(gw.app).get('/v1/tracks').set(auth)).status).toBe(429);
  });
});

describe('rate limits through an auto-pipelining Redis client, as main.ts wires it', () => {
  const gw = useGateway();
  let redis: Redis | undefined;
  afterAll(() => redis?.disconnect());

  it('counts every one of 30 concurrent requests exactly once against a cap of 12', async () => {
    redis = new Redis(gw.env.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, enableAutoPipelining: true, lazyConnect: true });
    await redis.connect();
    const app = createApp({ ...gw.deps, redis });
    const { accountId, auth } = await gw.account('starter');
    await gw.env.database.db.prisma.user.update({ where: { id: accountId }, data: { rateLimitPerMinute: 12 } });
    const answers = await Promise.all(Array.from({ length: 30 }, () => request(app).get('/v1/tracks').set(auth)));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(12);
    expect(answers.filter((res) => res.status === 429)).toHaveLength(18);
    const remaining = answers.filter((res) => res.status === 200).map((res) => Number(res.headers['x-ratelimit-remaining']));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    // Counted in Redis, not by the in-memory insurance limiter.
    const keys = await gw.env.redis.keys(`${gw.env.queuePrefix}:rl:account:12:${accountId}`);
    expect(keys).toHaveLength(1);
    expect(await gw.env.redis.get(keys[0] as string)).toBe('30');
  });
});

describe('subscriptions', () => {
  const gw = useGateway();

  it.each([
    ['canceled', { subscriptionStatus: 'canceled' as const }, /canceled/],
    ['past due', { subscriptionStatus: 'past_due' as const }, /past due/],
    ['expired', { currentPeriodEnd: new Date('2026-01-01T00:00:00Z') }, /expired on 2026-01-01T00:00:00.000Z/],
  ])('answers 402 subscription_inactive on every endpoint when %s, with the reason and the rate-limit headers', async (_name, data, reason) => {
    const { accountId, auth } = await gw.account();
    await gw.env.database.db.prisma.user.update({ where: { id: accountId }, data });
    for (const res of [
      await request(gw.app).get('/v1/tracks').set(auth),
      await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' }),
      await request(gw.app).get('/v1/accounts').set(auth),
    ]) {
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('subscription_inactive');
      expect(res.body.error.message).toMatch(reason);
      expectRateHeaders(res);
    }
    expect(await gw.env.database.db.prisma.track.count({ where: { userId: accountId } })).toBe(0);
  });
});

describe('request bodies and routes', () => {
  const gw = useGateway();

  it('answers 413 payload_too_large over 64 KiB, also when the body is chunked', async () => {
    const { auth } = await gw.account('business');
    const big = JSON.stringify({ hashtag: 'a'.repeat(66_000) });
    const res = await request(gw.app).post('/v1/tracks').set(auth).set('Content-Type', 'application/json').send(big);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    // A chunked body has no Content-Length to refuse up front: the parser must stop reading at the limit.
    const server = gw.app.listen(0);
    try {
      const { port } = server.address() as AddressInfo;
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest({ port, method: 'POST', path: '/v1/tracks', headers: { ...auth, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } }, (answer) => {
          answer.resume();
          resolve(answer.statusCode ?? 0);
        });
        req.on('error', reject);
        for (let i = 0; i < big.length; i += 8192) req.write(big.slice(i, i + 8192));
        req.end();
      });
      expect(status).toBe(413);
    } finally {
      server.close();
    }
  });

  it.each([
    ['not JSON', 'hashtag=btc', 'application/x-www-form-urlencoded'],
    ['broken JSON', '{"hashtag": "btc"', 'application/json'],
    ['a JSON string', '"btc"', 'application/json'],
  ])('answers 400 invalid_request to a body that is %s and creates nothing', async (_name, body, type) => {
    const { auth } = await gw.account('business');
    const res = await request(gw.app).post('/v1/tracks').set(auth).set('Content-Type', type).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect((await request(gw.app).get('/v1/tracks').set(auth)).body.data).toEqual([]);
  });

  it('answers 404 not_found in the error shape for unknown routes, after authentication under /v1', async () => {
    const { auth } = await gw.account();
    const unknown = await request(gw.app).get('/v1/unknown').set(auth);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    expect((await request(gw.app).get('/v1/unknown')).status).toBe(401);
    // A GET outside /v1 is the dashboard's (routes/dashboard); other methods find no route.
    const outside = await request(gw.app).post('/nowhere').send({});
    expect(outside.status).toBe(404);
    expect(outside.body.error.code).toBe('not_found');
    expect((await request(gw.app).put('/v1/tracks').set(auth).send({})).status).toBe(404);
  });

  it("sets helmet's default security headers, exactly as helmet() sets them, and no X-Powered-By", async () => {
    const reference = express();
    reference.use(helmet());
    reference.get('/healthz', (_req, res) => {
      res.json({});
    });
    const expected = (await request(reference).get('/healthz')).headers;
    const securityNames = Object.keys(expected).filter((name) => !['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'etag', 'x-powered-by'].includes(name));
    expect(securityNames.length).toBeGreaterThanOrEqual(10);
    for (const [path, headers] of [['/healthz', {}], ['/v1/tracks', {}], ['/v1/tracks', (await gw.account()).auth]] as const) {
      const res = await request(gw.app).get(path).set(headers);
      for (const name of securityNames) expect([path, name, res.headers[name]]).toEqual([path, name, expected[name]]);
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
    expect(expected['content-security-policy']).toContain("default-src 'self'");
  });

  it('answers 503 unavailable with Retry-After, and no detail, when the database is gone', async () => {
    const broken = createDatabase('postgresql://postgres@127.0.0.1:1/none', { max: 1 });
    const app = createApp({ ...gw.deps, db: broken });
    const res = await request(app).get('/v1/tracks').set({ Authorization: 'Bearer hw_live_whatever' });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.body).toEqual({ error: { code: 'unavailable', message: 'the database is busy or restarting; retry shortly' } });
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|at |127\.0\.0\.1/);
    await broken.close();
  });

  it('still answers 500 internal_error without any detail for a failure of ours', async () => {
    const broken = createDatabase('postgresql://postgres@127.0.0.1:1/none', { max: 1 });
    // A pool whose query throws what no database would: a defect, not an outage.
    broken.pool.query = (() => Promise.reject(new TypeError('cannot read properties of undefined (reading "rows")'))) as typeof broken.pool.query;
    const app = createApp({ ...gw.deps, db: broken });
    const res = await request(app).get('/v1/tracks').set({ Authorization: 'Bearer hw_live_whatever' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 'internal_error', message: expect.any(String) } });
    expect(JSON.stringify(res.body)).not.toMatch(/TypeError|rows|at /);
    await broken.close();
  });
});

describe('keys across replicas', () => {
  const gw = useGateway();

  it('refuses a regenerated key at once on every replica', async () => {
    const { accountId, auth } = await gw.account();
    const replicas = [gw.app, createApp({ ...gw.deps }), createApp({ ...gw.deps })];
    for (const app of replicas) await request(app).get('/v1/tracks').set(auth).expect(200);
    const fresh = await issueApiKey(gw.env.database.db.prisma, accountId);
    for (const app of replicas) {
      expect((await request(app).get('/v1/tracks').set(auth)).status).toBe(401);
      await request(app).get('/v1/tracks').set({ Authorization: `Bearer ${fresh}` }).expect(200);
    }
  });
});

describe('logs, health and documentation', () => {
  const gw = useGateway();

  it('writes one JSON log line per request without the key or any secret', async () => {
    const { apiKey, auth } = await gw.account();
    gw.logs.length = 0;
    await request(gw.app).post('/v1/tracks').set(auth).set('X-TOTP-Code', '123456').send({ hashtag: 'btc' }).expect(201);
    await request(gw.app).get(`/v1/tracks?key=${apiKey}`).set(auth).expect(200);
    const lines = gw.logs.filter((line) => line.message === 'request');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ method: 'POST', path: '/v1/tracks', status: 201, service: 'gateway', userId: expect.stringMatching(/^usr_/) });
    const text = JSON.stringify(gw.logs);
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(apiKey.slice(8, 30));
  });

  it('answers /healthz and /readyz without a key', async () => {
    expect((await request(gw.app).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(gw.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('serves the OpenAPI 3.1 document without a key, with bearer auth and every route', async () => {
    const res = await request(gw.app).get('/v1/openapi.json').expect(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/v1/tracks', '/v1/tracks/{id}', '/v1/accounts', '/v1/accounts/{id}']));
    const create = res.body.paths['/v1/tracks'].post;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '402', '403', '409', '413', '429', '500']));
    expect(create.requestBody.content['application/json'].schema).toBeDefined();
    expect(create.responses['201'].headers['X-RateLimit-Reset']).toBeDefined();
    const codes = (operation: { responses: Record<string, { content: { 'application/json': { schema: { properties: { error: { properties: { code: { enum: string[] } } } } } } } }> }, status: string) =>
      operation.responses[status]?.content['application/json'].schema.properties.error.properties.code.enum;
    expect(codes(create, '403')).toEqual(['csrf_failed', 'plan_limit_reached']);
    expect(res.body.components.securitySchemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'hw_session' });
    expect(res.body.paths['/v1/tracks'].get.responses['403']).toBeUndefined();
    expect(create.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'X-CSRF-Token', required: false })]));
    expect(res.body.paths['/v1/tracks'].get.parameters ?? []).not.toEqual(expect.arrayContaining([expect.objectContaining({ name: 'X-CSRF-Token' })]));
    // Public routes: no key, no session, and none of the authentication errors.
    const checkout = res.body.paths['/v1/api/checkout'].post;
    expect(checkout.security).toEqual([]);
    expect(Object.keys(checkout.responses).sort()).toEqual(['201', '400', '403', '409', '413', '429', '500', '503']);
    expect(codes(create, '409')).toEqual(['already_exists']);
    expect(codes(create, '429')).toEqual(['rate_limited']);
    expect(codes(res.body.paths['/v1/me'].delete, '403')).toEqual(['csrf_failed', 'two_factor_required', 'invalid_two_factor_code']);
  });

  it('documents every error a route answers: a probe of every documented operation gets a documented 400, never 404', async () => {
    const { auth } = await gw.account('business');
    const document = (await request(gw.app).get('/v1/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
    expect(operations.length).toBeGreaterThanOrEqual(20);
    for (const { path, method, operation } of operations) {
      // Every /v1 route reads the body first, so each can answer 400, 413 and, unless public, the authentication errors.
      const expected = (operation as { security?: unknown[] }).security?.length === 0 ? ['400', '413', '429', '500'] : ['400', '401', '402', '413', '429', '500'];
      expect([path, method, Object.keys(operation.responses)]).toEqual([path, method, expect.arrayContaining(expected)]);
      const url = path.replace(/\{\w+\}/g, 'x');
      // An unknown field is refused by every route, whether it takes a body or not; the harness turns an
      // undocumented error code into a 500, and an operation missing from the router into a 404.
      const res = await request(gw.app)[method as 'get'](url).set(auth).send({ probe_unknown_field: true });
      expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 400, 'invalid_request']);
    }
  });

  it('serves /docs as Swagger UI from local files, with its own-origin CSP and no inline script', async () => {
    const res = await request(gw.app).get('/docs').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    // The dashboard's policy: Swagger UI needs no inline style or script (checked in Chromium, no violation).
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
    );
    const sources = [...res.text.matchAll(/<(?:script|link)\b[^>]*?(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(sources).toEqual(['/docs/assets/swagger-ui.css', '/docs/assets/favicon-32x32.png', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/docs-init.js']);
    // Every script has a src: nothing inline for script-src 'self' to refuse.
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('serves swagger-ui-dist files under /docs/assets, compressed when asked, and no other file of that folder', async () => {
    const bundle = await request(gw.app).get('/docs/assets/swagger-ui-bundle.js').set('Accept-Encoding', 'gzip').expect(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(bundle.headers['content-encoding']).toBe('gzip');
    expect(bundle.text).toContain('SwaggerUIBundle');
    const css = await request(gw.app).get('/docs/assets/swagger-ui.css').expect(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    for (const url of ['/docs/assets/swagger-initializer.js', '/docs/assets/index.html', '/docs/assets/..%2Fpackage.json']) {
      const res = await request(gw.app).get(url);
      expect([url, res.status, res.body.error?.code]).toEqual([url, 404, 'not_found']);
    }
  });

  it('starts Swagger UI on /v1/openapi.json with try-it off, so no secret is typed into the docs', async () => {
    const res = await request(gw.app).get('/docs/assets/docs-init.js').expect(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.text).toContain("url: '/v1/openapi.json'");
    expect(res.text).toContain('supportedSubmitMethods: []');
    expect(res.text).toContain('tryItOutEnabled: false');
    expect(res.text).toContain('deepLinking: true');
    expect(res.text).toMatch(/authorizeBtn: nothing, authorizeOperationBtn: nothing/);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import type { Express } from 'express';
import { createApp } from '../../app';
import { request, useGateway } from '../../test-support/gateway-harness';

const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; "
  + "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';
// Over compression's 1 KiB threshold, so the answer is compressed.
const SCRIPT = `console.log(${JSON.stringify('hashwatch '.repeat(300))});\n`;

/** The headers and the raw body bytes, as sent (supertest decodes gzip but not br). */
async function rawGet(app: Express, url: string, headers: Record<string, string>): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  const server = app.listen(0);
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      get({ port, path: url, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
  } finally {
    server.close();
  }
}

describe('the dashboard at /', () => {
  const gw = useGateway();
  let dist: string;
  let app: Express;
  beforeAll(() => {
    dist = mkdtempSync(path.join(tmpdir(), 'hw-dashboard-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), INDEX);
    writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), SCRIPT);
    writeFileSync(path.join(dist, 'robots.txt'), 'User-agent: *\n');
    app = createApp({ ...gw.deps, dashboardDir: dist });
  });
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it.each(['/', '/tracks', '/some/deep/link', '/v1x', '/docsearch'])('answers index.html to GET %s with no-cache and the dashboard CSP', async (url) => {
    const res = await request(app).get(url).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toBe(INDEX);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    // helmet's other headers stay.
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
  });

  it('answers HEAD of a deep link like its GET, without a body', async () => {
    const res = await request(app).head('/feed').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('serves a file at the root of the build as it is, with no-cache', async () => {
    const res = await request(app).get('/robots.txt').expect(200);
    expect(res.text).toBe('User-agent: *\n');
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('serves an asset as immutable for a year, gzip-compressed when asked', async () => {
    const res = await request(app).get('/assets/index-abc123.js').set('Accept-Encoding', 'gzip').expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.text).toBe(SCRIPT);
    const plain = await request(app).get('/assets/index-abc123.js').set('Accept-Encoding', 'identity').expect(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  it('compresses with brotli when the browser takes br', async () => {
    const res = await rawGet(app, '/assets/index-abc123.js', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(res.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(res.body).toString()).toBe(SCRIPT);
  });

  it.each(['/assets/index-gone.js', '/assets/', '/assets'])('answers the JSON 404 to the unknown asset %s, never index.html', async (url) => {
    const res = await request(app).get(url).expect(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });

  it('keeps the JSON 404 for unknown paths under /v1, /docs and the health probes', async () => {
    const { auth } = await gw.account();
    for (const [url, headers] of [['/v1/nope', auth], ['/v1/', auth], ['/docs/nope', {}], ['/healthz/nope', {}]] as const) {
      const res = await request(app).get(url).set(headers);
      expect([url, res.status, res.body]).toEqual([url, 404, { error: { code: 'not_found', message: expect.any(String) } }]);
    }
    expect((await request(app).get('/v1/nope')).status).toBe(401);
  });

  it.each(['post', 'put', 'delete'] as const)('answers the JSON 404 to %s outside /v1', async (method) => {
    const res = await request(app)[method]('/anything').send({});
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('answers 503 with a line saying to build, when the dashboard is not built', async () => {
    const missing = createApp({ ...gw.deps, dashboardDir: path.join(dist, 'not-built') });
    for (const url of ['/', '/tracks']) {
      const res = await request(missing).get(url).expect(503);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('npm run build');
    }
    expect((await request(missing).get('/assets/index-abc123.js')).status).toBe(404);
    expect((await request(missing).get('/healthz')).status).toBe(200);
  });

  it('serves the build of @hashwatch/dashboard when no folder is given', async () => {
    const res = await request(gw.app).get('/');
    // 200 once the workspace is built, 503 before: either way the dashboard's answer, not the API's 404.
    expect([200, 503]).toContain(res.status);
    expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  XAuthError,
  XInvalidRequestError,
  XInvalidResponseError,
  XRateLimitedError,
  XUnavailableError,
  XUsageCappedError,
  type XApiError,
} from './x-errors';
import { APP_TOKEN, useXClientFixture } from './test-support/x-client-fixture';

async function failure(promise: Promise<unknown>): Promise<XApiError> {
  try {
    await promise;
  } catch (error) {
    return error as XApiError;
  }
  throw new Error('expected the call to fail');
}

/** A plain HTTP server answering every request with one fixed body: X misbehaving in ways the simulator does not. */
async function fixedServer(status: number, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('X errors become typed errors', () => {
  const x = useXClientFixture({ rateLimitWindowSeconds: 60 });

  beforeEach(() => {
    x.sim.state.faults.clear();
  });

  it('throws XAuthError (401, not retryable) for a token X does not know', async () => {
    const error = await failure(x.client({ bearerToken: 'revoked' }).searchRecent({ query: '#a' }));
    expect(error).toBeInstanceOf(XAuthError);
    expect(error).toMatchObject({ code: 'x_auth_failed', status: 401, retryable: false, endpoint: 'search_recent' });
    expect(error.message).not.toContain('revoked');
  });

  it('throws XAuthError (403) when X refuses an app-only token on liking_users', async () => {
    const post = x.sim.state.injectPost({ author: 'alice', text: 'x' });
    const error = await failure(x.client({ userToken: APP_TOKEN }).likingUsers(post.id));
    expect(error).toBeInstanceOf(XAuthError);
    expect(error.status).toBe(403);
  });

  it('throws XInvalidRequestError with the refused parameter for a query X does not accept', async () => {
    const error = await failure(x.client().searchRecent({ query: 'lang:en' }));
    expect(error).toBeInstanceOf(XInvalidRequestError);
    expect((error as XInvalidRequestError).problems).toEqual([
      expect.objectContaining({ type: 'https://api.twitter.com/2/problems/invalid-request', parameter: 'query', value: 'lang:en', detail: expect.stringContaining('standalone') }),
    ]);
    expect(error.message).toContain('standalone');
  });

  it.each([
    ['unavailable', 503],
    ['internal_error', 500],
  ] as const)('throws XUnavailableError (retryable) for an injected %s', async (kind, status) => {
    x.sim.state.injectFault({ endpoint: 'posts_lookup', kind });
    const error = await failure(x.client().postsByIds(['1']));
    expect(error).toBeInstanceOf(XUnavailableError);
    expect(error).toMatchObject({ status, retryable: true, reason: 'server_error' });
  });

  it('throws XUnavailableError with reason timeout when X answers slower than timeoutMs', async () => {
    x.sim.state.injectFault({ endpoint: 'user_by_username', kind: 'slow', delay_ms: 500 });
    const error = await failure(x.client({ timeoutMs: 100 }).userByUsername('alice'));
    expect(error).toBeInstanceOf(XUnavailableError);
    expect(error).toMatchObject({ reason: 'timeout', status: null });
  });

  it('throws XUnavailableError with reason network when nothing listens', async () => {
    const { url, server } = await fixedServer(200, '{}');
    await new Promise((resolve) => server.close(resolve));
    const error = await failure(x.client({ baseUrl: url }).userByUsername('alice'));
    expect(error).toMatchObject({ code: 'x_unavailable', reason: 'network' });
  });

  it.each(['code88', 'problem'] as const)('throws XRateLimitedError with resetAt from x-rate-limit-reset for the %s 429 body', async (body) => {
    x.sim.state.injectFault({ endpoint: 'users_by_usernames', kind: 'rate_limited', body });
    const error = await failure(x.client().usersByUsernames(['alice']));
    expect(error).toBeInstanceOf(XRateLimitedError);
    const limited = error as XRateLimitedError;
    expect(limited).toMatchObject({ status: 429, upstream: true, retryable: true });
    expect(limited.resetAt.getTime()).toBeGreaterThan(Date.now());
    expect(limited.resetAt.getTime()).toBeLessThanOrEqual(Date.now() + 61_000);
    await x.redis.del(`${x.keyPrefix}:xrl:users_by_usernames`);
  });

  it('throws XUsageCappedError, not a rate limit, for a usage-capped 429', async () => {
    x.sim.state.injectFault({ endpoint: 'search_recent', kind: 'usage_capped' });
    const error = await failure(x.client().searchRecent({ query: '#a' }));
    expect(error).toBeInstanceOf(XUsageCappedError);
    expect(error.message).toContain('Monthly product cap');
    // The window is not marked empty: the next call goes to X.
    await x.client().searchRecent({ query: '#a' });
  });

  it('reads a 429 without rate headers as blocked for rateLimitFallbackSeconds', async () => {
    const { url, server } = await fixedServer(429, '{"errors":[{"code":88,"message":"Rate limit exceeded"}]}');
    try {
      const before = Date.now();
      const error = (await failure(x.client({ baseUrl: url, rateLimitFallbackSeconds: 30, keyPrefix: `${x.keyPrefix}:bare` }).searchRecent({ query: '#a' }))) as XRateLimitedError;
      const after = Date.now();
      expect(error).toBeInstanceOf(XRateLimitedError);
      // 30 s after the answer, in whole seconds: bounded by the call's start and end, however long it took.
      expect(error.resetAt.getTime()).toBeGreaterThanOrEqual(before + 30_000);
      expect(error.resetAt.getTime()).toBeLessThanOrEqual(after + 31_000);
    } finally {
      server.close();
    }
  });

  it('blocks for rateLimitFallbackSeconds after a 429 without rate headers, not until a later reset remembered from a 200', async () => {
    // A 200 that reports a 15-minute window, then 429s with no x-rate-limit-* headers at all.
    let answered = 0;
    const server = createServer((_req, res) => {
      answered += 1;
      if (answered === 1) {
        const reset = String(Math.ceil(Date.now() / 1000) + 900);
        res.writeHead(200, { 'content-type': 'application/json', 'x-rate-limit-limit': '450', 'x-rate-limit-remaining': '449', 'x-rate-limit-reset': reset });
        res.end('{"meta":{"result_count":0}}');
      } else {
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end('{"errors":[{"code":88,"message":"Rate limit exceeded"}]}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = x.client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, rateLimitFallbackSeconds: 1, keyPrefix: `${x.keyPrefix}:bare-after-200` });
      await client.searchRecent({ query: '#a' });
      const error = (await failure(client.searchRecent({ query: '#a' }))) as XRateLimitedError;
      expect(error).toBeInstanceOf(XRateLimitedError);
      expect(error.resetAt.getTime()).toBeLessThanOrEqual(Date.now() + 2_000);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, error.resetAt.getTime() - Date.now() + 50)));
      await failure(client.searchRecent({ query: '#a' }));
      expect(answered).toBe(3);
    } finally {
      server.close();
    }
  });

  it('throws XInvalidResponseError for a 200 body that does not match the schema', async () => {
    const { url, server } = await fixedServer(200, '{"data":{"id":"1","text":"x"}}');
    try {
      const error = await failure(x.client({ baseUrl: url }).postsByIds(['1']));
      expect(error).toBeInstanceOf(XInvalidResponseError);
      expect(error.message).toContain('data');
    } finally {
      server.close();
    }
  });

  it('drops only the post that cannot be read, keeping the rest of the answer', async () => {
    const { url, server } = await fixedServer(200, '{"data":[{"id":"not-a-number","text":"x"},{"id":"2","text":"fine &amp; dandy"}]}');
    try {
      const lookup = await x.client({ baseUrl: url }).postsByIds(['1', '2']);
      expect(lookup.posts.map((post) => [post.id, post.text])).toEqual([['2', 'fine & dandy']]);
      expect(lookup.malformed).toEqual([{ id: 'not-a-number', dropped: ['post'] }]);
    } finally {
      server.close();
    }
  });
});

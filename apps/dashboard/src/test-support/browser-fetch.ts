import { configure } from '@testing-library/react';
import { inject } from 'vitest';

// A page under test waits on the real gateway, which a loaded machine (the whole suite on two cores) can keep for
// more than Testing Library's default 1 s: findBy* and waitFor wait up to 10 s, well inside the 30 s test timeout.
configure({ asyncUtilTimeout: 10_000 });

/**
 * What the browser gives the dashboard, for tests against the real gateway: a `Request` that resolves relative URLs
 * against the page (Node's refuses `/v1/...`), and a `fetch` that sends the page's requests to the gateway's address
 * and keeps the `hw_session` cookie it is given, as a browser keeps it for its origin. Loaded as a setup file, so
 * both are in place before the dashboard's client is created (openapi-fetch takes `Request` when it is).
 */
const gatewayUrl = inject('gatewayUrl');
const nodeFetch = globalThis.fetch.bind(globalThis);
const NodeRequest = globalThis.Request;

let cookie: string | undefined;

class BrowserRequest extends NodeRequest {
  constructor(input: RequestInfo | URL, init?: RequestInit) {
    super(typeof input === 'string' ? new URL(input, window.location.href) : input, init);
  }
}

function keepCookie(response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    if (!pair?.startsWith('hw_session=')) continue;
    const expired = pair === 'hw_session=' || /expires=Thu, 01 Jan 1970/i.test(line);
    cookie = expired ? undefined : pair;
  }
}

async function browserFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new BrowserRequest(input, init);
  const url = new URL(request.url);
  if (url.origin !== window.location.origin) return nodeFetch(request);
  const headers = new Headers(request.headers);
  if (cookie) headers.set('cookie', cookie);
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
  const response = await nodeFetch(new URL(`${url.pathname}${url.search}`, gatewayUrl), {
    method: request.method, headers, body, signal: request.signal, redirect: 'manual',
  });
  keepCookie(response);
  return response;
}

globalThis.Request = BrowserRequest;
globalThis.fetch = browserFetch;

/** The page's cookie, as a test reads it (the app never can: it is HttpOnly). */
export const sessionCookie = (): string | undefined => cookie;

/** A new browser profile: no session cookie. */
export function forgetCookies(): void {
  cookie = undefined;
}

/** The gateway's own address, for calls made outside the page (a backend with its API key). */
export const gateway = (path: string): string => new URL(path, gatewayUrl).toString();
export { nodeFetch };

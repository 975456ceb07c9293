import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * True when `token` is unset (an open /metrics, as CONTRACT 7's scrapers expect) or the request's Authorization
 * header is `Bearer <token>`. Compared as SHA-256 digests in constant time, so neither the timing nor the length of
 * a wrong token tells anything about the right one.
 */
export function metricsScrapeAllowed(headers: IncomingHttpHeaders, token: string | undefined): boolean {
  if (token === undefined) return true;
  const match = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '');
  const given = match?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(token)) && match !== null;
}

/** The 401 body of a scrape without the token, in the error shape. */
export const METRICS_UNAUTHORIZED = { error: { code: 'unauthorized', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' } } as const;

import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Request, Response } from 'express';
import type { XAnswer } from './problems';

const gzipAsync = promisify(gzip);

/**
 * JSON as X writes it: characters beyond the Basic Multilingual Plane (emoji) as escaped UTF-16 surrogate
 * pairs in upper-case hex (`\uD83D\uDC0D`), every other character as UTF-8 (the recorded bodies, byte for byte).
 */
export function xJson(body: unknown): string {
  return JSON.stringify(body).replace(/[\u{10000}-\u{10FFFF}]/gu, (ch) => {
    const high = ch.charCodeAt(0).toString(16).toUpperCase();
    const low = ch.charCodeAt(1).toString(16).toUpperCase();
    return `\\u${high}\\u${low}`;
  });
}

/** X's `Date` header: RFC 1123 with `UTC` where HTTP says `GMT` ("Fri, 07 Oct 2022 23:07:42 UTC"). */
export function xDate(ms: number): string {
  return new Date(ms).toUTCString().replace(/GMT$/, 'UTC');
}

/** True when the request's Accept-Encoding takes gzip (and does not refuse it with q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  for (const part of (header ?? '').split(',')) {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== '*') continue;
    const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    return q === undefined || Number(q) > 0;
  }
  return false;
}

/** The headers X puts on every answer, the stream's included. */
export function setXHeaders(res: Response, contentType: string, now: number): void {
  res.setHeader('Content-Type', `${contentType}; charset=utf-8`);
  res.setHeader('Date', xDate(now));
  res.setHeader('Cache-Control', 'no-cache, no-store, max-age=0');
}

/**
 * Writes an X answer: its JSON in X's bytes, X's headers, gzipped when the client takes gzip (X does so)
 * unless `identity` says the endpoint is always answered plain.
 */
export async function sendXAnswer(req: Request, res: Response, answer: XAnswer, now: number, identity = false): Promise<void> {
  const bytes = Buffer.from(xJson(answer.body), 'utf8');
  setXHeaders(res, answer.contentType ?? 'application/json', now);
  res.setHeader('Content-Disposition', 'attachment; filename=json.json');
  res.setHeader('Vary', 'Accept-Encoding');
  res.status(answer.status);
  if (identity || !acceptsGzip(req.get('accept-encoding'))) {
    res.setHeader('Content-Length', bytes.length);
    res.end(bytes);
    return;
  }
  const zipped = await gzipAsync(bytes);
  if (res.destroyed) return;
  res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Content-Length', zipped.length);
  res.end(zipped);
}

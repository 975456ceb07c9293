import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * helmet's default headers, computed once. helmet() runs a chain of 13 middlewares per request and
 * rebuilds the Content-Security-Policy string each time; with the default options every value is
 * constant, so they are recorded at start-up and replayed. The values stay helmet's own.
 */
export function securityHeaders(): RequestHandler {
  const headers: [string, string][] = [];
  const recorder = {
    setHeader(name: string, value: string | number) {
      headers.push([name, String(value)]);
    },
    removeHeader() {},
  };
  helmet()({} as Request, recorder as unknown as Response, (error?: unknown) => {
    if (error) throw error;
  });
  return function setSecurityHeaders(_req: Request, res: Response, next: NextFunction): void {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/**
 * The Content-Security-Policy of the pages the gateway serves (the dashboard and /docs), replacing helmet's:
 * everything from this origin only. img-src allows data: because the 2FA QR code is a PNG data URL and Swagger
 * UI's icons are SVG data URLs. Unlike helmet's, no upgrade-insecure-requests (the demo runs on
 * http://localhost) and no https: sources; frame-ancestors 'none' since no page is meant to be framed. Swagger UI
 * renders under it without a violation (styles only through its stylesheet and the CSSOM, no eval).
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

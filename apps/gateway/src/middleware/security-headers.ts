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

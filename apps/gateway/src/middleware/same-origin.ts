import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '@hashwatch/errors';

/**
 * Refuses a browser's cross-site request to a public route (403 `csrf_failed`): a form on another site could
 * otherwise sign a visitor into someone else's account (login CSRF) or start checkouts in their name. Browsers
 * name the page's origin in `Origin` (and say `Sec-Fetch-Site: cross-site`); a request from our own pages, or
 * from a backend or curl, which sends neither, passes.
 */
export function sameOriginOnly(publicUrl: string): RequestHandler {
  const allowed = new URL(publicUrl).origin;
  return function refuseCrossSite(req: Request, _res: Response, next: NextFunction): void {
    const origin = req.headers.origin;
    const own = `${req.protocol}://${req.headers.host ?? ''}`;
    const crossSite = req.headers['sec-fetch-site'] === 'cross-site' || (origin !== undefined && origin !== allowed && origin !== own);
    if (crossSite) throw new AppError('csrf_failed', 'cross-site requests to this endpoint are refused: call it from the dashboard or a backend');
    next();
  };
}

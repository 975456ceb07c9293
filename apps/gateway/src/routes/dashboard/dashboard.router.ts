import path from 'node:path';
import compression from 'compression';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { PAGE_CSP } from '../../middleware/security-headers';

const ONE_YEAR_MS = 365 * 24 * 60 * 60 * 1000;

// Paths the dashboard never answers: the API, the docs, the operator's pages (the queue console, when it is not
// configured) and the health probes keep their own 404s.
const NOT_DASHBOARD = /^\/(?:v1|docs|admin|healthz|readyz)(?:\/|$)/;

const NOT_BUILT = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Hashwatch</title></head>'
  + '<body><p>The dashboard is not built yet: run <code>npm run build</code>, then reload.</p></body></html>';

/** The built dashboard: `@hashwatch/dashboard`'s dist folder, next to its package.json. */
export function defaultDashboardDir(): string {
  return path.join(path.dirname(require.resolve('@hashwatch/dashboard/package.json')), 'dist');
}

/** `no-cache` on everything but the hashed assets: a new build shows at the next page load. */
function noCache(res: Response): void {
  res.setHeader('Cache-Control', 'no-cache');
}

/**
 * Serves the dashboard built into `distDir`: `/assets/*` as immutable (Vite names them by content hash), other
 * files as they are, and index.html for any other GET or HEAD (the dashboard routes in the browser). Mounted
 * after /v1, so API requests never reach its file lookups; the directory is read per request, so a gateway
 * started before the dashboard was built serves it once it is.
 */
export function dashboardRouter(distDir: string): Router {
  const router = Router();
  const indexFile = path.join(distDir, 'index.html');
  router.use((req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_DASHBOARD.test(req.path)) {
      next('router');
      return;
    }
    res.setHeader('Content-Security-Policy', PAGE_CSP);
    next();
  });
  router.use(compression());
  router.use(
    '/assets',
    express.static(path.join(distDir, 'assets'), { index: false, redirect: false, immutable: true, maxAge: ONE_YEAR_MS }),
    // An unknown asset is the API's JSON 404, never index.html: a stale page must not run HTML as script.
    (_req: Request, _res: Response, next: NextFunction) => next('router'),
  );
  router.use(express.static(distDir, { index: false, redirect: false, cacheControl: false, setHeaders: noCache }));
  router.use((_req: Request, res: Response, next: NextFunction) => {
    res.sendFile(indexFile, { cacheControl: false, headers: { 'Cache-Control': 'no-cache' } }, (error?: NodeJS.ErrnoException) => {
      // ECONNABORTED: the browser went away; nothing to answer.
      if (!error || res.headersSent || error.code === 'ECONNABORTED') return;
      if (error.code !== 'ENOENT' && error.code !== 'ENOTDIR') {
        next(error);
        return;
      }
      res.status(503).type('html').setHeader('Cache-Control', 'no-store');
      res.send(NOT_BUILT);
    });
  });
  return router;
}

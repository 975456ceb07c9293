import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@hashwatch/logger';

/**
 * One JSON log line per request: method, route, status, duration, account. Never headers, bodies or
 * query strings (they carry keys, TOTP codes and cursors).
 */
export function requestLog(logger: Logger) {
  return function logRequest(req: Request, res: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    const requestId = randomUUID();
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      const level = res.statusCode >= 500 ? 'error' : 'info';
      // winston formats an entry before dropping it; skip the work when the level is off.
      if (!logger.isLevelEnabled(level)) return;
      const auth = res.locals.auth as { userId?: string } | undefined;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.log(level, 'request', {
        requestId,
        method: req.method,
        path: req.baseUrl + (req.route?.path ?? req.path),
        status: res.statusCode,
        durationMs: Math.round(durationMs * 100) / 100,
        userId: auth?.userId,
      });
    });
    next();
  };
}

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '@hashwatch/errors';
import type { GatewayDeps } from '../deps';
import type { AuthContext } from './authenticate';
import { addressKey } from './client-address';
import { setRateLimitHeaders } from './rate-limit-headers';
import { describeWait, Limiter } from './rate-limiters';

/** "5 minutes", "minute", "90 seconds": a limit's window in the words of a 429 message. */
export function describeWindow(durationSeconds: number): string {
  if (durationSeconds === 60) return 'minute';
  return durationSeconds % 60 === 0 ? `${durationSeconds / 60} minutes` : `${durationSeconds} seconds`;
}

export interface TightLimit {
  limiter: Limiter;
  /** Counts a request against the limit; answers 429 when over it. */
  middleware: RequestHandler;
  /** For limits that count only successful actions: throws 429 when none is left, counts nothing. */
  check(userId: string): Promise<void>;
  /** Counts one action (after it succeeded). */
  record(userId: string): Promise<void>;
}

/**
 * A limit tighter than the per-minute cap on one sensitive endpoint (2FA, key regeneration), per account, shared
 * by replicas.
 * On a 429 the X-RateLimit-* headers describe this limit, so a client that waits until
 * X-RateLimit-Reset waits long enough.
 */
export function tightLimit(deps: GatewayDeps, name: string, label: string, points: number, durationSeconds: number): TightLimit {
  const limiter = new Limiter(deps.redis, `${deps.keyPrefix}:rl:${name}`, points, durationSeconds);
  const window = describeWindow(durationSeconds);
  const refuse = (res: Response | undefined, decision: Awaited<ReturnType<Limiter['consume']>>): never => {
    if (res) setRateLimitHeaders(res, decision);
    throw new AppError('rate_limited', `${label} is limited to ${points} per ${window}; retry in ${describeWait(decision.retryAfterSeconds)}`, {
      retryAfterSeconds: decision.retryAfterSeconds,
    });
  };
  return {
    limiter,
    async middleware(req: Request, res: Response, next: NextFunction) {
      const auth = res.locals.auth as AuthContext;
      const decision = await limiter.consume(auth.userId);
      if (!decision.allowed) refuse(res, decision);
      next();
    },
    async check(userId) {
      const decision = await limiter.peek(userId);
      if (!decision.allowed) refuse(undefined, decision);
    },
    async record(userId) {
      await limiter.consume(userId);
    },
  };
}

/**
 * A per-client-IP limit on a public route (checkout, sign-in steps, password reset), shared by replicas: every
 * request counts; over it, 429 with the X-RateLimit-* headers of this limit.
 */
export function ipLimit(deps: GatewayDeps, name: string, label: string, points: number, durationSeconds: number): RequestHandler {
  const limiter = new Limiter(deps.redis, `${deps.keyPrefix}:rl:ip:${name}`, points, durationSeconds);
  return async function limitByAddress(req: Request, res: Response, next: NextFunction): Promise<void> {
    const decision = await limiter.consume(addressKey(req));
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) {
      throw new AppError('rate_limited', `${label} is limited to ${points} per ${describeWindow(durationSeconds)} per address; retry in ${describeWait(decision.retryAfterSeconds)}`, {
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    }
    next();
  };
}

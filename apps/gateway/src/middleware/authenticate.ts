import type { NextFunction, Request, Response } from 'express';
import { subscriptionProblem } from '@hashwatch/accounts';
import { AppError } from '@hashwatch/errors';
import { hashApiKey } from '@hashwatch/secrets';
import type { GatewayDeps } from '../deps';
import { setRateLimitHeaders } from './rate-limit-headers';
import { Limiter, PerMinuteLimiters } from './rate-limiters';

/** The caller, as the rest of the request sees it. */
export interface AuthContext {
  userId: string;
  keyId: string;
  rateLimitPerMinute: number;
}

interface KeyRow {
  key_id: string;
  user_id: string;
  rate_limit_per_minute: number;
  subscription_status: 'active' | 'past_due' | 'canceled';
  current_period_end: Date;
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,200})$/;
// CONTRACT section 4: 60 failed authentications a minute per client IP, then 429.
const AUTH_FAILURES_PER_MINUTE = 60;

/**
 * Bearer authentication, then the per-key cap, then the subscription check: all before the body is
 * read, so every answer to a request with a valid key carries the rate-limit headers. The key is looked
 * up in PostgreSQL on every request (no cache), so a regenerated key is refused at once on every replica.
 */
export function authenticate(deps: GatewayDeps) {
  const perKey = new PerMinuteLimiters(deps.redis, `${deps.keyPrefix}:rl:key`);
  const failures = new Limiter(deps.redis, `${deps.keyPrefix}:rl:authfail`, AUTH_FAILURES_PER_MINUTE, 60);

  return async function authenticateRequest(req: Request, res: Response, next: NextFunction): Promise<void> {
    const match = BEARER.exec(req.headers.authorization ?? '');
    const row = match?.[1] ? await findKey(deps, match[1]) : undefined;
    if (!row) {
      const decision = await failures.consume(req.ip ?? 'unknown');
      if (!decision.allowed) {
        res.setHeader('Retry-After', String(decision.retryAfterSeconds));
        throw new AppError('rate_limited', `too many failed authentications from this address; retry in ${decision.retryAfterSeconds}s`);
      }
      throw new AppError('unauthorized', match ? 'the API key is invalid or revoked' : 'missing bearer API key: send Authorization: Bearer <API_KEY>');
    }
    const decision = await perKey.for(row.rate_limit_per_minute).consume(row.key_id);
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) {
      throw new AppError('rate_limited', `over the plan's cap of ${decision.limit} requests per minute; retry in ${decision.retryAfterSeconds}s`);
    }
    const problem = subscriptionProblem({ subscriptionStatus: row.subscription_status, currentPeriodEnd: row.current_period_end }, deps.now());
    if (problem) throw new AppError('subscription_inactive', problem);
    res.locals.auth = { userId: row.user_id, keyId: row.key_id, rateLimitPerMinute: row.rate_limit_per_minute } satisfies AuthContext;
    next();
  };
}

async function findKey(deps: GatewayDeps, apiKey: string): Promise<KeyRow | undefined> {
  // Named, so PostgreSQL parses and plans it once per connection instead of on every request.
  const { rows } = await deps.db.pool.query<KeyRow>({
    name: 'hw-authenticate',
    text: `SELECT k.id AS key_id, u.id AS user_id, u.rate_limit_per_minute, u.subscription_status, u.current_period_end
       FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    values: [hashApiKey(apiKey)],
  });
  return rows[0];
}

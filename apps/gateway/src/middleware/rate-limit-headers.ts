import type { Response } from 'express';
import type { LimitDecision } from './rate-limiters';

export function setRateLimitHeaders(res: Response, decision: LimitDecision): void {
  res.setHeader('X-RateLimit-Limit', String(decision.limit));
  res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
  res.setHeader('X-RateLimit-Reset', String(decision.resetAt));
  if (!decision.allowed) res.setHeader('Retry-After', String(decision.retryAfterSeconds));
}

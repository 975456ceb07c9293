import type { RedisClient } from '@hashwatch/queues';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  resetAt: number;
  retryAfterSeconds: number;
}

/**
 * Counts requests in Redis so every gateway replica shares one count per key (rate-limiter-flexible's
 * atomic Lua scripts). If Redis stops answering, an in-memory limiter of the same size takes over per
 * replica instead of failing every request.
 */
export class Limiter {
  private readonly limiter: RateLimiterRedis;

  constructor(
    redis: RedisClient,
    keyPrefix: string,
    readonly points: number,
    readonly durationSeconds: number,
  ) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points,
      duration: durationSeconds,
      insuranceLimiter: new RateLimiterMemory({ points, duration: durationSeconds }),
    });
  }

  async consume(key: string, now = Date.now()): Promise<LimitDecision> {
    try {
      return this.decision(await this.limiter.consume(key), true, now);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return this.decision(rejection, false, now);
      throw rejection;
    }
  }

  /** Gives back one counted request (an attempt that turned out not to count, e.g. a successful sign-in). */
  async refund(key: string): Promise<void> {
    await this.limiter.reward(key, 1);
  }

  /** Current state without counting a request. */
  async peek(key: string, now = Date.now()): Promise<LimitDecision> {
    const state = await this.limiter.get(key);
    if (!state) return { allowed: true, limit: this.points, remaining: this.points, resetAt: Math.ceil(now / 1000) + this.durationSeconds, retryAfterSeconds: 0 };
    return this.decision(state, state.consumedPoints < this.points, now);
  }

  private decision(state: RateLimiterRes, allowed: boolean, now: number): LimitDecision {
    return {
      allowed,
      limit: this.points,
      remaining: Math.max(0, this.points - state.consumedPoints),
      resetAt: Math.ceil((now + state.msBeforeNext) / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil(state.msBeforeNext / 1000)),
    };
  }
}

/** One limiter per distinct per-minute cap, created on first use (plans and snapshots can change). */
export class PerMinuteLimiters {
  private readonly byPoints = new Map<number, Limiter>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
  ) {}

  for(points: number): Limiter {
    let limiter = this.byPoints.get(points);
    if (!limiter) {
      limiter = new Limiter(this.redis, `${this.keyPrefix}:${points}`, points, 60);
      this.byPoints.set(points, limiter);
    }
    return limiter;
  }
}

/** "4m 12s", "45s": the wait, in the words of a 429 message. */
export function describeWait(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  if (minutes === 0) return `${rest}s`;
  return rest === 0 ? `${minutes}m` : `${minutes}m ${rest}s`;
}

import type { RedisClient } from '@hashwatch/queues';
import type { SampleKind } from './sample-kinds';

/** How many sample calls one category may make, across every replica. */
export interface SampleAllowance {
  /** Most calls in any window of `windowSeconds`. */
  perWindow: number;
  windowSeconds: number;
  /** Calls available at once after a quiet spell; the rest trickle in evenly over the window. */
  burst: number;
}

/**
 * X's published rate limits: liking_users and retweeted_by allow 75 calls per 15 minutes. Replies
 * go through recent search, whose 450 per 15 minutes the scanner needs for detection: a third is ours.
 * A burst of a fifth lets the first cycles after a quiet spell catch up, and the trickle keeps every later
 * minute supplied for the posts that changed most then, instead of spending the window in its first minute.
 */
export const DEFAULT_ALLOWANCES: Record<SampleKind, SampleAllowance> = {
  like: { perWindow: 75, windowSeconds: 900, burst: 15 },
  retweet: { perWindow: 75, windowSeconds: 900, burst: 15 },
  reply: { perWindow: 150, windowSeconds: 900, burst: 30 },
};

// A token bucket in one hash (tokens, ts in ms). Holding `burst` tokens at most and refilling
// (perWindow - burst) per window, it never grants more than perWindow in any window of that length.
// A caller with a clock behind the stored one refills nothing rather than going backwards; a smaller burst
// configured since the last call applies at once.
const TAKE = `
local cap = tonumber(ARGV[3])
local rate = tonumber(ARGV[4])
local now = tonumber(ARGV[1])
local tokens = math.min(cap, tonumber(redis.call('HGET', KEYS[1], 'tokens') or ARGV[3]))
local ts = tonumber(redis.call('HGET', KEYS[1], 'ts') or ARGV[1])
if now > ts then
  tokens = math.min(cap, tokens + (now - ts) * rate)
  ts = now
end
local grant = math.floor(math.min(tonumber(ARGV[2]), tokens))
if grant < 0 then grant = 0 end
tokens = tokens - grant
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(ts))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return grant`;

const GIVE_BACK = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or '0') + tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'tokens', tostring(math.min(tonumber(ARGV[2]), tokens)))
return 1`;

/**
 * The sample-call budget of each category, in Redis under the suite's key prefix so that every replica
 * draws from one bucket. The clock is a parameter: tests move it to refill the bucket.
 */
export class SampleBudget {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly allowances: Record<SampleKind, SampleAllowance> = DEFAULT_ALLOWANCES,
  ) {}

  key(kind: SampleKind): string {
    return `${this.keyPrefix}:engagement:sample-budget:${kind}`;
  }

  /** Takes up to `want` calls; answers how many were granted (0 when the bucket is empty). */
  async take(kind: SampleKind, want: number, now: Date): Promise<number> {
    if (want <= 0) return 0;
    const { perWindow, windowSeconds, burst } = this.allowances[kind];
    const capacity = Math.min(burst, perWindow);
    const ratePerMs = (perWindow - capacity) / (windowSeconds * 1000);
    const ttlMs = windowSeconds * 2000;
    return Number(await this.redis.eval(TAKE, 1, this.key(kind), String(now.getTime()), String(want), String(capacity), String(ratePerMs), String(ttlMs)));
  }

  /** Returns calls taken but not made (the post was gone or held by another replica). */
  async giveBack(kind: SampleKind, count: number): Promise<void> {
    if (count <= 0) return;
    const { perWindow, burst } = this.allowances[kind];
    await this.redis.eval(GIVE_BACK, 1, this.key(kind), String(count), String(Math.min(burst, perWindow)));
  }
}

import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { XEndpointName } from './x-endpoints';

/**
 * A Lua script sent by its SHA-1 (EVALSHA): every X call runs two budget scripts, and EVAL would resend the
 * whole script each time. Redis answers NOSCRIPT when its script cache does not hold it (a restart, SCRIPT
 * FLUSH, another Redis behind the same address); then the script goes once with EVAL, which caches it again.
 * Nothing is registered on the shared connection.
 */
class BudgetScript {
  private readonly sha: string;

  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(redis: Redis, key: string, ...args: string[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, 1, key, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.lua, 1, key, ...args);
    }
  }
}

// Every script keeps one hash per endpoint: limit, remaining, reset (unix seconds). The key expires a minute
// after the window resets, so a stale budget never outlives its window.

// Takes one request from the window if one is known; answers 0 (go) or the reset time (wait until then).
const RESERVE = new BudgetScript(`
local reset = tonumber(redis.call('HGET', KEYS[1], 'reset') or '0')
if reset > tonumber(ARGV[1]) then
  local remaining = tonumber(redis.call('HGET', KEYS[1], 'remaining') or '1')
  if remaining <= 0 then return reset end
  redis.call('HINCRBY', KEYS[1], 'remaining', -1)
end
return 0`);

// Stores what X's headers said. An answer from an older window is ignored; within one window the lower
// remaining wins, because answers of concurrent calls arrive in any order.
const RECORD = new BudgetScript(`
local remaining = tonumber(ARGV[2])
local reset = tonumber(ARGV[3])
local storedReset = tonumber(redis.call('HGET', KEYS[1], 'reset') or '0')
if reset < storedReset then return 0 end
if reset == storedReset then
  local stored = tonumber(redis.call('HGET', KEYS[1], 'remaining') or ARGV[2])
  if stored < remaining then remaining = stored end
end
redis.call('HSET', KEYS[1], 'limit', ARGV[1], 'remaining', remaining, 'reset', reset)
redis.call('EXPIREAT', KEYS[1], reset + 60)
return 1`);

// After a 429: nothing left until reset (or the later reset already known).
const EXHAUST = new BudgetScript(`
local reset = tonumber(ARGV[1])
local storedReset = tonumber(redis.call('HGET', KEYS[1], 'reset') or '0')
if storedReset > reset then reset = storedReset end
redis.call('HSET', KEYS[1], 'remaining', 0, 'reset', reset)
redis.call('EXPIREAT', KEYS[1], reset + 60)
return reset`);

export interface BudgetState {
  limit: number | null;
  remaining: number;
  /** Unix seconds. */
  reset: number;
}

/**
 * One upstream rate budget per X endpoint, in Redis, shared by every replica that uses the same key prefix:
 * X counts requests per app token, not per process, so one replica's 429 must stop the others too.
 */
export class RateBudget {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {}

  key(endpoint: XEndpointName): string {
    return `${this.keyPrefix}:xrl:${endpoint}`;
  }

  /** Takes a request from the known window. Returns null to go ahead, or the reset (unix seconds) to wait for. */
  async reserve(endpoint: XEndpointName, nowMs: number): Promise<number | null> {
    const blockedUntil = Number(await RESERVE.run(this.redis, this.key(endpoint), (nowMs / 1000).toFixed(3)));
    return blockedUntil > 0 ? blockedUntil : null;
  }

  async record(endpoint: XEndpointName, state: { limit: number; remaining: number; reset: number }): Promise<void> {
    await RECORD.run(this.redis, this.key(endpoint), String(state.limit), String(state.remaining), String(Math.ceil(state.reset)));
  }

  /** Marks the window empty until `reset` (unix seconds); returns the reset it settled on. */
  async exhaust(endpoint: XEndpointName, reset: number): Promise<number> {
    return Number(await EXHAUST.run(this.redis, this.key(endpoint), String(Math.ceil(reset))));
  }

  async read(endpoint: XEndpointName): Promise<BudgetState | null> {
    const hash = await this.redis.hgetall(this.key(endpoint));
    if (hash.reset === undefined || hash.remaining === undefined) return null;
    return { limit: hash.limit === undefined ? null : Number(hash.limit), remaining: Number(hash.remaining), reset: Number(hash.reset) };
  }
}

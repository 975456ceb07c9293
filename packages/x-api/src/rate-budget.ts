import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
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

  async run(redis: Redis | Cluster, key: string, ...args: string[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, 1, key, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.lua, 1, key, ...args);
    }
  }
}

// Every script keeps one hash per endpoint: limit, remaining, reset (unix seconds) of the window X reported,
// and blocked (unix seconds) while a 429 holds the endpoint. The key expires a minute after the window
// resets, so a stale budget never outlives its window.
//
// X's answer is the authority on its limits, and answers arrive in any order: a 429 may name a reset sooner
// than the one the 200s before it gave, and a late 429 from an old window may land after a 200 from the
// new one. So a 429 sets the block to its own reset, whatever was stored, and the window with it; answers
// that land while that block holds were sent before it and change nothing.

// Takes one request from the window if one is known; answers 0 (go) or the time to wait until.
const RESERVE = new BudgetScript(`
local now = tonumber(ARGV[1])
local state = redis.call('HMGET', KEYS[1], 'reset', 'remaining', 'blocked')
local blocked = tonumber(state[3] or '0')
if blocked > now then return blocked end
local reset = tonumber(state[1] or '0')
if reset > now then
  local remaining = tonumber(state[2] or '1')
  if remaining <= 0 then return reset end
  redis.call('HINCRBY', KEYS[1], 'remaining', -1)
end
return 0`);

// Stores what X's headers said. An answer from an older window is ignored; within one window the lower
// remaining wins, because answers of concurrent calls arrive in any order. While a 429's block holds,
// every answer is ignored: its call went out before the 429, which is X's latest word.
const RECORD = new BudgetScript(`
local remaining = tonumber(ARGV[2])
local reset = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'reset', 'remaining', 'blocked')
if tonumber(state[3] or '0') > now then return 0 end
local storedReset = tonumber(state[1] or '0')
if reset < storedReset then return 0 end
if reset == storedReset then
  local stored = tonumber(state[2] or ARGV[2])
  if stored < remaining then remaining = stored end
end
redis.call('HSET', KEYS[1], 'limit', ARGV[1], 'remaining', remaining, 'reset', reset)
redis.call('HDEL', KEYS[1], 'blocked')
redis.call('EXPIREAT', KEYS[1], reset + 60)
return 1`);

// After a 429: nothing left until that answer's reset, sooner or later than any reset stored before; the
// window the earlier answers described ends there too, so no remembered reset outlasts the 429's.
const EXHAUST = new BudgetScript(`
local reset = tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'remaining', 0, 'reset', reset, 'blocked', reset)
redis.call('EXPIREAT', KEYS[1], reset + 60)
return reset`);

export interface BudgetState {
  limit: number | null;
  remaining: number;
  /** Unix seconds. */
  reset: number;
  /** Unix seconds: the reset of the 429 that holds the endpoint; null when no 429 is stored since the last answer recorded. */
  blockedUntil: number | null;
}

/**
 * One upstream rate budget per X endpoint, in Redis, shared by every replica that uses the same key prefix:
 * X counts requests per app token, not per process, so one replica's 429 must stop the others too.
 */
export class RateBudget {
  constructor(
    private readonly redis: Redis | Cluster,
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

  /** Stores the headers of an answer that arrived at `nowMs`, unless it is older than what is stored (see RECORD). */
  async record(endpoint: XEndpointName, state: { limit: number; remaining: number; reset: number }, nowMs: number): Promise<void> {
    const args = [String(state.limit), String(state.remaining), String(Math.ceil(state.reset)), (nowMs / 1000).toFixed(3)];
    await RECORD.run(this.redis, this.key(endpoint), ...args);
  }

  /** After a 429: blocks the endpoint until `reset` (unix seconds), that answer's own, and returns it. */
  async exhaust(endpoint: XEndpointName, reset: number): Promise<number> {
    return Number(await EXHAUST.run(this.redis, this.key(endpoint), String(Math.ceil(reset))));
  }

  async read(endpoint: XEndpointName): Promise<BudgetState | null> {
    const hash = await this.redis.hgetall(this.key(endpoint));
    if (hash.reset === undefined || hash.remaining === undefined) return null;
    return {
      limit: hash.limit === undefined ? null : Number(hash.limit),
      remaining: Number(hash.remaining),
      reset: Number(hash.reset),
      blockedUntil: hash.blocked === undefined ? null : Number(hash.blocked),
    };
  }
}

import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Exclusive right of one drain run to send for a channel, so two replicas never drain it at once. */
export interface DrainLease {
  /** Pushes the expiry out again when a third of it has passed; false when the lease was lost. */
  keep(): Promise<boolean>;
  /** Lets go, and answers whether a wake for new work arrived since the flag was last read (see below). */
  release(): Promise<{ woken: boolean }>;
}

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
// Releasing and reading the wake flag is one atomic step: a wake either lands before it (and is answered here)
// or after it (and its job finds the lease free). Either way no new delivery waits for the sweeper.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
local woken = redis.call('GET', KEYS[2])
if woken then redis.call('DEL', KEYS[2]) return 1 end
return 0`;

export function drainKeys(prefix: string, channelId: string): { lease: string; woken: string } {
  return { lease: `${prefix}:notifier:lease:${channelId}`, woken: `${prefix}:notifier:woken:${channelId}` };
}

/** Takes the lease for `ttlMs`, or answers undefined while another run holds it. */
export async function acquireDrainLease(redis: Redis, keys: { lease: string; woken: string }, ttlMs: number): Promise<DrainLease | undefined> {
  const token = randomBytes(12).toString('base64url');
  const taken = await redis.set(keys.lease, token, 'PX', ttlMs, 'NX');
  if (taken !== 'OK') return undefined;
  let renewedAt = Date.now();
  return {
    async keep() {
      if (Date.now() - renewedAt < ttlMs / 3) return true;
      const kept = Number(await redis.eval(RENEW, 1, keys.lease, token, ttlMs)) === 1;
      renewedAt = Date.now();
      return kept;
    },
    async release() {
      return { woken: Number(await redis.eval(RELEASE, 2, keys.lease, keys.woken, token)) === 1 };
    },
  };
}

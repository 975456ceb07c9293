import { randomBytes } from 'node:crypto';
import type { RedisClient } from '@hashwatch/queues';

/** Exclusive right of one drain run to send for a channel, so two replicas never drain it at once. */
export interface DrainLease {
  /** The channel was in digest mode when the lease was taken (read in the same step). */
  readonly digestMode: boolean;
  /** The channel's target failed a send that is waiting for a retry (read in the same step). */
  readonly retriesWaiting: boolean;
  /**
   * Random per run: the lease's value in Redis, and the claim token the run writes on the deliveries it
   * claims, so that a run that lost the lease cannot touch what a newer run claimed.
   */
  readonly token: string;
  /**
   * Whether the lease is still this run's with at least `aheadMs` of it left (less than its length; by
   * default two thirds of it). Answered by the local clock while that much is left since the last renewal was
   * sent: RedisClient counts the expiry from when it ran the command, which is later (a background heartbeat, when
   * asked for, keeps that much left). Otherwise renews in Redis, and a renewal answered so late that less than
   * `aheadMs` is left counts as lost. A run that stalled past its lease (a blocked event loop, a GC pause, a
   * partition to Redis, one step longer than the heartbeat allows) finds here that it lost it. Each call also
   * tells the heartbeat the run is making progress. False once lost, for good.
   */
  keep(aheadMs?: number): Promise<boolean>;
  /** Lets go, and answers whether a wake for new work arrived since the lease was taken (see below). */
  release(): Promise<{ woken: boolean }>;
}

export interface DrainKeys {
  lease: string;
  /** Raised by a wake that found (or may find) the lease taken; read by the holder as it lets go. */
  woken: string;
  /** Present while the channel sends digests. */
  digest: string;
  /** Raised when a send fails for a while (a retry waits); cleared once the target takes a message again. */
  retrying: string;
}

// KEYS: lease, woken flag, digest flag, retrying flag. ARGV: token, lease ms, raise the flag when taken (1/0), flag ms.
// Taking the lease clears the wake flag: every delivery whose wake raised it was committed before, so the
// claim this run makes next sees it. When the lease is taken, the caller may raise the flag in the same step,
// so the holder, which reads it as it lets go, runs again: no delivery waits for the sweeper.
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]), 'NX') then
  redis.call('DEL', KEYS[2])
  return {1, redis.call('EXISTS', KEYS[3]), redis.call('EXISTS', KEYS[4])}
end
if ARGV[3] == '1' then redis.call('SET', KEYS[2], '1', 'PX', tonumber(ARGV[4])) end
return {0, 0, 0}`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
// Releasing and reading the wake flag is one atomic step: a wake either lands before it (and is answered here)
// or after it (and finds the lease free). Either way no new delivery waits for the sweeper. A run that lost
// the lease leaves the flag alone: it was raised for the run holding the lease now (or for the next to take it).
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
local woken = redis.call('GET', KEYS[2])
if woken then redis.call('DEL', KEYS[2]) return 1 end
return 0`;

// Long enough to outlive any run that could read it; a flag nobody reads only costs one extra run.
export const WOKEN_FLAG_TTL_MS = 120_000;

/**
 * A channel's keys end in the hash tag `{<channel id>}`: the acquire script reads all four at once, so on a
 * Redis Cluster they must share one slot, and channels spread over the masters.
 */
export function drainKeys(prefix: string, channelId: string): DrainKeys {
  return {
    lease: `${prefix}:notifier:lease:{${channelId}}`,
    woken: `${prefix}:notifier:woken:{${channelId}}`,
    digest: `${prefix}:notifier:digest:{${channelId}}`,
    retrying: `${prefix}:notifier:retrying:{${channelId}}`,
  };
}

interface LeaseCommands {
  hwDrainAcquire(
    lease: string,
    woken: string,
    digest: string,
    retrying: string,
    token: string,
    ttlMs: number,
    flag: 0 | 1,
    flagMs: number,
  ): Promise<[number, number, number]>;
  hwDrainRenew(lease: string, token: string, ttlMs: number): Promise<number>;
  hwDrainRelease(lease: string, woken: string, token: string): Promise<number>;
}

/**
 * Defines the lease scripts on `redis`. A connection that auto-pipelines must get them before its first command:
 * ioredis copies a connection's scripts into each pipeline as it opens one, so a script defined while a pipeline
 * is open is missing from it, and calling it then throws an uncaught TypeError (`results[i] is not iterable`)
 * that ends the process. {@link acquireDrainLease} defines them on first use for any other connection.
 */
export function defineDrainLeaseScripts(redis: RedisClient): void {
  commands(redis);
}

function commands(redis: RedisClient): RedisClient & LeaseCommands {
  const withCommands = redis as RedisClient & Partial<LeaseCommands>;
  if (typeof withCommands.hwDrainAcquire !== 'function') {
    // Defined scripts run by EVALSHA: the script text crosses the wire once per connection.
    redis.defineCommand('hwDrainAcquire', { numberOfKeys: 4, lua: ACQUIRE });
    redis.defineCommand('hwDrainRenew', { numberOfKeys: 1, lua: RENEW });
    redis.defineCommand('hwDrainRelease', { numberOfKeys: 2, lua: RELEASE });
  }
  return withCommands as RedisClient & LeaseCommands;
}

export interface DrainLeaseOptions {
  /** A taken lease gets the channel's wake flag raised in the same step, so its holder runs again after letting go. */
  flagWhenTaken?: boolean;
  /**
   * Renews the lease in the background, every quarter of it, while the holder called `keep()` within this long
   * (a run in the middle of one step); 0 or absent: no background renewal. A process that dies stops renewing, so
   * its channel is free within one lease however long a send may take; a run stuck in one step past this loses it.
   */
  heartbeatWhileMs?: number;
}

/** Takes the lease for `ttlMs`, or answers undefined while another run holds it. */
export async function acquireDrainLease(redis: RedisClient, keys: DrainKeys, ttlMs: number, options: DrainLeaseOptions = {}): Promise<DrainLease | undefined> {
  const scripts = commands(redis);
  const token = randomBytes(12).toString('base64url');
  // Hold times are measured from before the command that set the expiry was sent, on the monotonic clock.
  let renewSentAt = performance.now();
  const [taken, digest, retrying] = await scripts.hwDrainAcquire(
    keys.lease,
    keys.woken,
    keys.digest,
    keys.retrying,
    token,
    ttlMs,
    options.flagWhenTaken ? 1 : 0,
    WOKEN_FLAG_TTL_MS,
  );
  if (Number(taken) !== 1) return undefined;
  const leftSince = (sentAt: number) => ttlMs - (performance.now() - sentAt);
  let lost = false;
  let keptAt = performance.now();
  // One renewal at a time: answers of two overlapping ones could arrive out of order.
  let renewing: Promise<boolean> | undefined;
  const renew = (): Promise<boolean> => {
    renewing ??= (async () => {
      const sentAt = performance.now();
      try {
        const renewed = Number(await scripts.hwDrainRenew(keys.lease, token, ttlMs)) === 1;
        if (renewed) renewSentAt = Math.max(renewSentAt, sentAt);
        else lost = true;
        return renewed;
      } finally {
        renewing = undefined;
      }
    })();
    return renewing;
  };
  const heartbeatWhileMs = options.heartbeatWhileMs ?? 0;
  const heartbeat =
    heartbeatWhileMs > 0
      ? setInterval(() => {
          if (lost || performance.now() - keptAt > heartbeatWhileMs) return;
          // A failed renewal (Redis away) is not a loss yet: keep() judges by the time left.
          renew().catch(() => undefined);
        }, ttlMs / 4)
      : undefined;
  heartbeat?.unref();
  const stopHeartbeat = () => clearInterval(heartbeat);
  return {
    digestMode: Number(digest) === 1,
    retriesWaiting: Number(retrying) === 1,
    token,
    async keep(aheadMs = (2 * ttlMs) / 3) {
      keptAt = performance.now();
      if (lost) return false;
      if (leftSince(renewSentAt) > aheadMs) return true;
      // A renewal answered so late that less than `aheadMs` is left counts as lost (or joins one in flight).
      if (!(await renew()) || leftSince(renewSentAt) <= aheadMs) lost = true;
      if (lost) stopHeartbeat();
      return !lost;
    },
    async release() {
      stopHeartbeat();
      lost = true;
      return { woken: Number(await scripts.hwDrainRelease(keys.lease, keys.woken, token)) === 1 };
    },
  };
}

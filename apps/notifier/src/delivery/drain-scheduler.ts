import { jobId, queueCatalog, retryOptions, type Queues, type RedisClient } from '@hashwatch/queues';
import { acquireDrainLease, defineDrainLeaseScripts, drainKeys, WOKEN_FLAG_TTL_MS, type DrainLease } from './drain-lease';

/** Asks for a drain run of a channel. */
export interface DrainScheduler {
  /**
   * A drain of `channelId` runs in `delayMs` (default now), as a job any replica may take. A wake for now also
   * raises the channel's wake flag, which the run holding the channel reads as it lets go. Calls within one
   * slot for one channel add one job.
   */
  wake(channelId: string, delayMs?: number): Promise<void>;
  /**
   * A drain of `channelId` now, in this replica when it has room: it takes the channel's lease and drains in
   * the background (no job), or, when another run holds the lease, raises its wake flag in the same step. A
   * replica without room, or without a local runner, falls back to {@link wake}. A kick holds its room from the
   * call on, while it is still taking the lease, so concurrent kicks never run more than the capacity.
   */
  kick(channelId: string): Promise<void>;
  /** Resolves once every drain started by {@link kick} (or still taking its lease) has finished; new kicks then go to {@link wake}. */
  close(): Promise<void>;
}

/** Runs one drain of a channel whose lease the caller already holds, and lets the lease go. */
export type LocalDrainRunner = (channelId: string, lease: DrainLease) => Promise<void>;

const drainChannel = queueCatalog['alert-deliveries']['drain-channel'];

/**
 * Drain jobs have the id `drain-<channelId>-<slot>`, the slot being the run time in `slotMs` steps: the
 * hundreds of wakes a burst of alerts makes collapse into one job per slot, and a wake for later never
 * swallows a wake for now. Finished drain jobs are removed at once so their ids can be used again; the
 * lease, not the job id, keeps runs of one channel apart.
 *
 * With `local`, {@link DrainScheduler.kick} drains in this process, at most `local.capacity` channels at once:
 * the common case (routing just stored a delivery for a channel nobody is draining) then costs one Redis
 * script instead of a job's add, fetch and completion.
 */
export function createDrainScheduler(
  queues: Queues,
  redis: RedisClient,
  options: { slotMs?: number; local?: { capacity: number; leaseMs: number; heartbeatWhileMs?: number; run: LocalDrainRunner } } = {},
): DrainScheduler {
  const slotMs = options.slotMs ?? 100;
  const queue = queues.byName['alert-deliveries'];
  const inFlight = new Set<Promise<void>>();
  let closed = false;
  // Now, before the connection's first command: see defineDrainLeaseScripts.
  defineDrainLeaseScripts(redis);

  const wake = async (channelId: string, delayMs = 0): Promise<void> => {
    const delay = Math.max(0, Math.ceil(delayMs));
    const payload = drainChannel.payload.parse({ channelId });
    if (delay === 0) await redis.set(drainKeys(queues.prefix, channelId).woken, '1', 'PX', WOKEN_FLAG_TTL_MS);
    const slot = Math.ceil((Date.now() + delay) / slotMs);
    await queue.add('drain-channel', payload, {
      jobId: jobId('drain', channelId, slot),
      ...retryOptions(drainChannel),
      ...(delay > 0 ? { delay } : {}),
      removeOnComplete: true,
      removeOnFail: true,
    });
  };

  return {
    wake,
    async kick(channelId) {
      const local = options.local;
      if (!local || closed || inFlight.size >= local.capacity) return wake(channelId);
      // The slot is taken before the first await: routing kicks a whole batch's channels at once, and every one
      // of those kicks passes the check above before any lease comes back.
      const acquired = acquireDrainLease(redis, drainKeys(queues.prefix, channelId), local.leaseMs, { flagWhenTaken: true, heartbeatWhileMs: local.heartbeatWhileMs });
      // Taken: its holder saw the flag raised and runs again after letting go. The runner logs and recovers its
      // own failures, and a failed acquire is the caller's (below): nothing here may become an unhandled rejection.
      const run: Promise<void> = acquired
        .then((lease) => lease && local.run(channelId, lease))
        .catch(() => undefined)
        .finally(() => inFlight.delete(run));
      inFlight.add(run);
      await acquired;
    },
    async close() {
      closed = true;
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

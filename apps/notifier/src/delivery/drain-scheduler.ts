import type { Redis } from 'ioredis';
import { jobId, queueCatalog, retryOptions, type Queues } from '@hashwatch/queues';
import { drainKeys } from './drain-lease';

/** Asks for a drain run of a channel. */
export interface DrainScheduler {
  /**
   * A drain of `channelId` runs in `delayMs` (default now). A wake for now also raises the channel's wake flag,
   * which the run holding the channel reads as it lets go. Calls within one slot for one channel add one job.
   */
  wake(channelId: string, delayMs?: number): Promise<void>;
}

const drainChannel = queueCatalog['alert-deliveries']['drain-channel'];
// Long enough to outlive any run that could read it; a flag nobody reads only costs one extra run.
const WOKEN_FLAG_TTL_MS = 120_000;

/**
 * Drain jobs have the id `drain-<channelId>-<slot>`, the slot being the run time in `slotMs` steps: the
 * hundreds of wakes a burst of alerts makes collapse into one job per slot, and a wake for later never
 * swallows a wake for now. Finished drain jobs are removed at once so their ids can be used again; the
 * lease, not the job id, keeps runs of one channel apart.
 */
export function createDrainScheduler(queues: Queues, redis: Redis, options: { slotMs?: number } = {}): DrainScheduler {
  const slotMs = options.slotMs ?? 100;
  const queue = queues.byName['alert-deliveries'];
  return {
    async wake(channelId, delayMs = 0) {
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
    },
  };
}

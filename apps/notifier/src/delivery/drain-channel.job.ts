import type { Logger } from '@hashwatch/logger';
import { leaseStallMs } from '../notifier-options';
import type { DrainDeps, DrainResult, RunResult } from './drain-contract';
import { acquireDrainLease, drainKeys, type DrainLease } from './drain-lease';
import { DrainRun } from './drain-run';

/**
 * Runs a drain whose lease is held, lets go, and asks for the next run. Letting go also reads the channel's
 * wake flag, so a delivery routed while this run held the lease (whose wake found the lease taken) gets a run
 * at once instead of waiting for the sweeper.
 */
export async function drainWithLease(deps: DrainDeps, channelId: string, lease: DrainLease, log: Logger): Promise<DrainResult> {
  let result: RunResult;
  try {
    result = await new DrainRun(deps, channelId, lease, log).run();
  } catch (error) {
    await lease.release().catch(() => undefined);
    throw error;
  }
  const { woken } = await lease.release().catch((error: unknown) => {
    log.warn('drain lease not released', { channelId, error });
    return { woken: true };
  });
  if (result.kind === 'paced') await deps.drains.wake(channelId, result.waitMs);
  // A yield goes back through the queue: other channels had their turn first, on any replica.
  else if (result.kind === 'yield') await deps.drains.wake(channelId, 0);
  else if (result.kind === 'idle' && woken) await deps.drains.kick(channelId);
  return result;
}

/** One drain job: takes the channel's lease, sends, lets go, and asks for the next run. */
export async function drainChannel(deps: DrainDeps, channelId: string, log: Logger): Promise<DrainResult> {
  const lease = await acquireDrainLease(deps.redis, drainKeys(deps.prefix, channelId), deps.options.leaseMs, { heartbeatWhileMs: leaseStallMs(deps.options) });
  if (!lease) return { kind: 'busy' };
  return drainWithLease(deps, channelId, lease, log);
}

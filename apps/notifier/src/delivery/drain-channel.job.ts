import type pg from 'pg';
import type { RedisClient } from '@hashwatch/queues';
import type { Sender } from '@hashwatch/channels';
import type { Logger } from '@hashwatch/logger';
import type { Cipher } from '@hashwatch/secrets';
import { leaseStallMs, type NotifierOptions } from '../notifier-options';
import type { NotifierMetrics } from '../notifier-metrics';
import type { AccountSends } from './account-sends';
import type { DeliveredWriter } from './delivery-store';
import type { DestinationPace } from './destination-pace';
import { acquireDrainLease, drainKeys, type DrainLease } from './drain-lease';
import { DrainRun } from './drain-run';
import type { DrainScheduler } from './drain-scheduler';

export interface DrainDeps {
  pool: pg.Pool;
  /** Leases, pace buckets and digest state; a connection that fails fast while Redis is away. */
  redis: RedisClient;
  pace: DestinationPace;
  /** This replica's sends in flight per account (capped at `options.maxSendsPerAccount`). */
  accountSends: AccountSends;
  drains: DrainScheduler;
  cipher: Cipher;
  sender: Sender;
  telegramBaseUrl: string;
  prefix: string;
  options: NotifierOptions;
  metrics: NotifierMetrics;
  random?: () => number;
  /** Per channel, how many deliveries its last run claimed at once, so the next run's first claim does too. */
  batchHints?: Map<string, number>;
  /** Writes the delivered marks of runs that end, many runs in one statement; without it each run writes its own. */
  deliveredWriter?: DeliveredWriter;
}

/** How a drain run ended, and so when the channel should be drained next. */
export type DrainResult =
  /** Another run holds the channel; it looks for new work after it lets go. */
  | { kind: 'busy' }
  /** Nothing due. Deliveries waiting for a retry are woken by the sweeper when they fall due. */
  | { kind: 'idle' }
  /** The destination must not get anything for `waitMs` (pace, retry_after, failure pause, open circuit), or the account is at its sends in flight. */
  | { kind: 'paced'; waitMs: number }
  /** The run used its share (sends or time); more is due at once, after other channels had their turn. */
  | { kind: 'yield' }
  /** The channel is gone or disabled, or the lease was lost. */
  | { kind: 'stopped' };

/** How a run that held the lease ended. */
export type RunResult = Exclude<DrainResult, { kind: 'busy' }>;

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

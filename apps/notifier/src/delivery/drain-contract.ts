import type pg from 'pg';
import type { RedisClient } from '@hashwatch/queues';
import type { Sender } from '@hashwatch/channels';
import type { Cipher } from '@hashwatch/secrets';
import type { NotifierOptions } from '../notifier-options';
import type { NotifierMetrics } from '../notifier-metrics';
import type { AccountSends } from './account-sends';
import type { DeliveredWriter } from './delivery-store';
import type { DestinationPace } from './destination-pace';
import type { DrainScheduler } from './drain-scheduler';

/** What a drain run is given: the clients, the channel pacing and the notifier's options. */
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

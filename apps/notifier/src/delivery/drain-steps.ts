import type { ChannelConfig, DeliveryAttempt } from '@hashwatch/channels';
import type { ChannelRow } from './channel-store';
import { destinationOf, type Destination } from './destination-pace';
import type { DrainDeps, RunResult } from './drain-contract';
import type { Outgoing } from './outgoing';

/** The channel as the drain uses it: the row, its unsealed config and its destination's buckets. */
export interface LiveChannel {
  row: ChannelRow;
  /** The row as read, to notice a change between two claims. */
  fingerprint: string;
  config: ChannelConfig;
  destination: Destination;
  /** Deliveries claimed at once: no more than the destination may take in one burst, at most `claimBatch`. */
  batch: number;
}

/** What became of one message: sent (or failed for good), the claim to be redone, or the run's end (recorded). */
export type MessageStep = { kind: 'next' } | { kind: 'claim-again' } | { kind: 'end'; result: RunResult };

/** What an outcome handler asks for: as MessageStep, or `stop`: the run ends after this message, the rest given back. */
export type OutcomeStep = MessageStep | { kind: 'stop'; result: RunResult };

/** One message as sent: what the outcome handlers need of it. */
export interface Sent {
  out: Outgoing;
  index: number;
  ids: string[];
  status: number | null;
  /** No answer came within the sender's deadline (first byte or whole answer). */
  timedOut: boolean;
  latencyMs: number;
  fields: Record<string, unknown>;
}

/** A message sent, with what came of it. */
export interface Attempt {
  sent: Sent;
  outcome: DeliveryAttempt['outcome'];
}

// Channels whose batch size one replica remembers; past this the memory starts over.
const MAX_BATCH_HINTS = 10_000;

/**
 * The channel with its unsealed config, destination and claim size: what the destination may take in one burst, at
 * most `claimBatch` (a json receiver's window has no burst: `claimBatch`). Remembered in `batchHints`, so the
 * channel's next run claims as many from its first claim.
 */
export function liveChannelOf(deps: DrainDeps, channelId: string, row: ChannelRow, fingerprint: string, config: ChannelConfig): LiveChannel {
  const destination = destinationOf(config, deps.options.pace, deps.prefix);
  const burst = Math.min(...destination.buckets.map((bucket) => bucket.rule.limit));
  const live = { row, fingerprint, config, destination, batch: Math.max(1, Math.min(deps.options.claimBatch, burst)) };
  if (deps.batchHints && deps.batchHints.get(channelId) !== live.batch) {
    if (deps.batchHints.size >= MAX_BATCH_HINTS) deps.batchHints.clear();
    deps.batchHints.set(channelId, live.batch);
  }
  return live;
}

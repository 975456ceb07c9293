import type pg from 'pg';
import type { Redis } from 'ioredis';
import { ChannelConfigError, deliver, takesDigests, type ChannelConfig, type ChannelMessage, type DeliveryAttempt, type Sender } from '@hashwatch/channels';
import type { Logger } from '@hashwatch/logger';
import type { Cipher } from '@hashwatch/secrets';
import { leaseStallMs, type NotifierOptions } from '../notifier-options';
import { matchingSource } from '../routing/channel-routing';
import { alertFor } from './alert-message';
import { disableChannel, migrateChat, routingChannel, type ChannelRow } from './channel-store';
import { claimNext, digestIdFor, failPending, markDelivered, markFailed, markRetry, releaseClaim, reviveRetries, type ClaimedDelivery, type DeliveredMark, type DeliveredWriter } from './delivery-store';
import { destinationOf, type Destination, type DestinationPace } from './destination-pace';
import { acquireDrainLease, drainKeys, type DrainLease } from './drain-lease';
import { unsealForRun } from './unseal-for-run';
import type { DrainScheduler } from './drain-scheduler';
import type { NotifierMetrics } from '../notifier-metrics';
import { retryDelayMs } from './retry-delay';

export interface DrainDeps {
  pool: pg.Pool;
  /** Leases, pace buckets and digest state; a connection that fails fast while Redis is away. */
  redis: Redis;
  pace: DestinationPace;
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

// Channels whose batch size one replica remembers; past this the memory starts over.
const MAX_BATCH_HINTS = 10_000;

/** How a drain run ended, and so when the channel should be drained next. */
export type DrainResult =
  /** Another run holds the channel; it looks for new work after it lets go. */
  | { kind: 'busy' }
  /** Nothing due. Deliveries waiting for a retry are woken by the sweeper when they fall due. */
  | { kind: 'idle' }
  /** The destination must not get anything for `waitMs` (pace, retry_after, failure pause). */
  | { kind: 'paced'; waitMs: number }
  /** The run used its share (sends or time); more is due at once, after other channels had their turn. */
  | { kind: 'yield' }
  /** The channel is gone or disabled, or the lease was lost. */
  | { kind: 'stopped' };

type RunResult = Exclude<DrainResult, { kind: 'busy' }>;

// The retrying flag outlives the retries it stands for (they end with the retry window).
const RETRYING_FLAG_MARGIN_MS = 60 * 60_000;

// A backlog that stays after the burst keeps the channel in digest mode for at most this long.
const DIGEST_MODE_TTL_MS = 60 * 60_000;

/** One message of a claim: a single alert, or a digest of several (chat platforms only). */
interface Outgoing {
  deliveries: ClaimedDelivery[];
  message: ChannelMessage;
  messageId: string;
  digest: boolean;
}

function messagesFor(batch: ClaimedDelivery[], channel: ChannelRow, digest: boolean): Outgoing[] {
  const routing = routingChannel(channel);
  const alertOf = (delivery: ClaimedDelivery) =>
    alertFor(delivery, matchingSource(routing, { ...delivery, kind: delivery.kind }, { trackLikes: true, trackReposts: true, trackComments: true }));
  if (digest && batch.length > 1) {
    const alerts = batch.map(alertOf);
    return [{ deliveries: batch, message: { type: 'digest', alerts, total: alerts.length }, messageId: digestIdFor(batch.map((d) => d.id)), digest: true }];
  }
  return batch.map((delivery) => ({ deliveries: [delivery], message: alertOf(delivery), messageId: delivery.message_id, digest: false }));
}

async function attempt(message: ChannelMessage, config: ChannelConfig, messageId: string, sender: Sender): Promise<DeliveryAttempt> {
  try {
    return await deliver(message, config, { messageId, timestamp: new Date() }, sender);
  } catch (error) {
    if (!(error instanceof ChannelConfigError)) throw error;
    return { outcome: { outcome: 'permanent', reason: `the channel cannot be used: ${error.message}`, disableChannel: true }, status: null };
  }
}

/** The channel as the drain uses it: the row, its unsealed config and its destination's buckets. */
interface LiveChannel {
  row: ChannelRow;
  /** The row as read, to notice a change between two claims. */
  fingerprint: string;
  config: ChannelConfig;
  destination: Destination;
  /** Deliveries claimed at once: no more than the destination may take in one burst, at most `claimBatch`. */
  batch: number;
}

/**
 * Sends what is due for one channel, in detection order, within the destination's pace.
 * The deliveries table is the channel's queue; this run owns the channel through a Redis lease and gives its
 * worker slot back whenever it would have to wait, so a slow, failing or paced channel never holds up another.
 * One statement per claim marks the previous claim's messages delivered, reads the channel and claims the next
 * deliveries, a few at once when the destination's pace allows a burst.
 *
 * The lease is short and renewed in the background while the run makes progress, so a killed replica frees its
 * channels within one lease. It is checked right before every send (by the local clock), so a run that stalled
 * past its lease stops without sending. Its claims carry the
 * lease's token: what it records or gives back afterwards only touches deliveries no newer run has claimed.
 */
async function runDrain(deps: DrainDeps, channelId: string, lease: DrainLease, log: Logger): Promise<RunResult> {
  const { pool, options, metrics } = deps;
  const claimToken = lease.token;
  // Lease left for a send to start: two thirds of it, which the background heartbeat keeps while the run makes
  // progress, so the check is local. Every check of the lease asks for this much, so a run never goes on to
  // claim work it would then have to give back unsent.
  const sendAheadMs = (2 * options.leaseMs) / 3;
  const { digest: digestKey, retrying: retryingKey } = drainKeys(deps.prefix, channelId);
  let digestMode = lease.digestMode;
  let live: LiveChannel | undefined;
  const started = Date.now();
  let sends = 0;
  // The target took a message after failing: its waiting retries were made due (at most once a run).
  let revived = false;
  // Deliveries of the messages sent since the last claim, recorded with the next claim.
  let delivered: DeliveredMark[] = [];
  const flush = async () => {
    const marks = delivered;
    delivered = [];
    await (deps.deliveredWriter ? deps.deliveredWriter.write(marks) : markDelivered(pool, marks));
  };
  const debug = log.isLevelEnabled('debug');
  const outOfTurn = () => sends >= options.maxSendsPerRun || Date.now() - started >= options.runBudgetMs;
  // The delivery ids of the current claim, per message; those from `unsent` on were not sent yet.
  let claim: string[][] = [];
  let unsent = 0;
  // Claimed but not sent (pace, a failure, the run's turn is over): due again at once, attempt not counted.
  // Given back once: the claim is forgotten before the statement, so attempts are never uncounted twice.
  const giveBack = async (from: number) => {
    const rest = claim.slice(from).flat();
    claim = [];
    unsent = 0;
    if (rest.length > 0) await releaseClaim(pool, rest, claimToken);
  };

  try {
    for (;;) {
      // Asked once: the time spent renewing the lease must not turn a lost lease into a yield (and a needless job).
      const turnOver = outOfTurn();
      if (turnOver || !(await lease.keep(sendAheadMs))) {
        await flush();
        return turnOver ? { kind: 'yield' } : { kind: 'stopped' };
      }
      // A channel that never takes digests (json) claims what its destination takes in one burst, backlog or not.
      const perItem = live && !takesDigests(live.config.kind) ? live.batch : undefined;
      const { channel, claimed: batch, backlog } = await claimNext(pool, channelId, {
        digestMode: digestMode && perItem === undefined,
        digestThreshold: options.digestThreshold,
        digestSize: perItem ?? options.digestSize,
        batch: live?.batch ?? deps.batchHints?.get(channelId) ?? 1,
        // Longer than the lease: a run that lost its lease while alive (a stall) may still be sending these, or
        // have sent them with their delivered mark not yet written; the run that takes the channel over must not
        // send them again meanwhile. A killed replica's claim waits this long; its channel, only the lease.
        holdMs: leaseStallMs(options),
        claimToken,
        delivered,
      });
      delivered = [];
      claim = [batch.map((delivery) => delivery.id)];
      unsent = 0;
      if (!channel) return { kind: 'stopped' };
      if (!channel.enabled || channel.disabled_reason) {
        const reason = `not sent: the channel is disabled${channel.disabled_reason ? ` (${channel.disabled_reason})` : ''}`;
        const failed = await failPending(pool, channelId, reason);
        if (failed > 0) log.info('deliveries of a disabled channel failed', { channelId, failed });
        return { kind: 'stopped' };
      }
      const fingerprint = JSON.stringify(channel);
      if (live?.fingerprint !== fingerprint) {
        // Unsealed here, for this run only; again only when the row changed (a PUT, a chat migration).
        const unsealed = await unsealForRun(deps, channel, batch, claimToken, log);
        if ('stop' in unsealed) {
          // Its claimed deliveries are recorded (to retry, or failed): none is given back.
          unsent = batch.length;
          await flush();
          return unsealed.stop;
        }
        const { config } = unsealed;
        const destination = destinationOf(config, options.pace, deps.prefix);
        const burst = Math.min(...destination.buckets.map((bucket) => bucket.rule.limit));
        live = { row: channel, fingerprint, config, destination, batch: Math.max(1, Math.min(options.claimBatch, burst)) };
        if (deps.batchHints && deps.batchHints.get(channelId) !== live.batch) {
          if (deps.batchHints.size >= MAX_BATCH_HINTS) deps.batchHints.clear();
          deps.batchHints.set(channelId, live.batch);
        }
      }
      if (batch.length === 0) {
        if (digestMode) await deps.redis.del(digestKey);
        return { kind: 'idle' };
      }
      const chat = takesDigests(live.config.kind);
      if (!chat && digestMode) {
        // Left by an older release, which folded json bursts too: json channels get one message per item
        // (docs/DECISIONS.md), so the flag is dropped and this claim is sent item by item below.
        digestMode = false;
        await deps.redis.del(digestKey);
        log.info('digest mode dropped: json channels get one message per item', { channelId });
      }
      if (chat && backlog > options.digestThreshold && !digestMode) {
        digestMode = true;
        await deps.redis.set(digestKey, '1', 'PX', DIGEST_MODE_TTL_MS);
        log.info('channel switched to digests', { channelId, backlogOver: options.digestThreshold });
      }

      const { config, destination } = live;
      const outgoing = messagesFor(batch, live.row, digestMode && chat);
      claim = outgoing.map((message) => message.deliveries.map((delivery) => delivery.id));

      let stop: RunResult | undefined;
      // Set when deliveries were given back to be claimed again by this run (a chat migration).
      let again = false;
      for (let index = 0; index < outgoing.length; index += 1) {
        if (index > 0 && outOfTurn()) {
          await giveBack(index);
          await flush();
          return { kind: 'yield' };
        }
        const { deliveries, message, messageId, digest } = outgoing[index]!;
        // Claimed first, paced second: a channel with nothing due never spends a slot of its destination's budget.
        const waitMs = await deps.pace.reserve(destination);
        if (waitMs > 0) {
          await giveBack(index);
          stop = { kind: 'paced', waitMs };
          break;
        }
        // Last step before the send, after every await: a run that stalled past its lease must not send what
        // the run that took over may have claimed. Answered locally while enough of the lease is left.
        if (!(await lease.keep(sendAheadMs))) {
          await giveBack(index);
          await flush();
          log.warn('drain lease lost; stopped without sending', { channelId, notSent: outgoing.length - index });
          return { kind: 'stopped' };
        }
        const ids = deliveries.map((delivery) => delivery.id);
        const sentAt = Date.now();
        unsent = index + 1;
        const { outcome, status } = await attempt(message, config, messageId, deps.sender);
        sends += 1;
        metrics.sends.inc(config.kind);
        const fields = { channelId, kind: config.kind, deliveries: ids.length, digest, status, durationMs: Date.now() - sentAt };

        if (outcome.outcome === 'delivered') {
          for (const id of ids) delivered.push({ id, status, digestId: digest ? messageId : null, claimToken });
          metrics.delivered.inc(config.kind, ids.length);
          if (debug) log.debug('delivered', fields);
          // The target takes messages again: the channel's deliveries waiting for a retry are due now. Known from
          // the flag a failure raised (read with the lease), or from this message being a retry itself.
          if (!revived && (lease.retriesWaiting || deliveries.some((delivery) => delivery.attempts > 1))) {
            revived = true;
            const due = await reviveRetries(pool, channelId, claimToken);
            await deps.redis.del(retryingKey);
            if (due > 0) {
              // Counted after the claim's backlog: the run goes on to claim them instead of ending idle.
              again = true;
              log.info('target accepts again: waiting retries are due now', { channelId, due });
            }
          }
          // The target said its budget is spent: the destination waits, so the next reservation answers paced.
          if (outcome.pauseMs !== undefined) await deps.pace.block(destination, outcome.pauseMs);
          continue;
        }

        if (outcome.outcome === 'retry') {
          const rateLimited = status === 429;
          const attempts = Math.max(...deliveries.map((delivery) => delivery.attempts));
          const backoff = retryDelayMs(attempts, { baseMs: options.backoffBaseMs, maxMs: options.maxBackoffMs }, deps.random);
          // A 429 that says when is never retried sooner. Otherwise backoff, and a Retry-After on a 5xx extends it.
          const delayMs = rateLimited && outcome.afterMs !== undefined ? outcome.afterMs : Math.max(backoff, outcome.afterMs ?? 0);
          const { gaveUp } = await markRetry(pool, ids, claimToken, { status, reason: outcome.reason, delayMs, retryWindowMs: options.retryWindowMs });
          // Read with the next lease: the first message this target takes again makes these due at once.
          await deps.redis.set(retryingKey, '1', 'PX', options.retryWindowMs + RETRYING_FLAG_MARGIN_MS);
          metrics.retried.inc(config.kind, ids.length - gaveUp);
          if (gaveUp > 0) metrics.failed.inc(config.kind, gaveUp);
          const pauseMs = rateLimited ? delayMs : Math.min(delayMs, options.failurePauseMs);
          await deps.pace.block(destination, pauseMs);
          await giveBack(index + 1);
          log.warn(gaveUp > 0 ? 'delivery failed after retries' : 'delivery will retry', { ...fields, reason: outcome.reason, delayMs, gaveUp });
          stop = { kind: 'paced', waitMs: pauseMs };
          break;
        }

        if (outcome.outcome === 'permanent' && outcome.migrateToChatId && live.row.chat_id && outcome.migrateToChatId !== live.row.chat_id) {
          // Telegram: the group moved to a supergroup (the Bot API's migrate_to_chat_id). Follow it and resend at
          // once; the next claim reads the row with its new chat id.
          await migrateChat(pool, channelId, live.row.chat_id, outcome.migrateToChatId);
          await giveBack(index);
          log.info('telegram chat migrated', { channelId });
          again = true;
          break;
        }

        // Permanent: this message can never be delivered ('retry-plain' was already handled inside deliver()).
        const reason = outcome.reason;
        await markFailed(pool, ids, claimToken, status, reason);
        metrics.failed.inc(config.kind, ids.length);
        if (outcome.outcome === 'permanent' && outcome.disableChannel) {
          await flush();
          const failed = await disableChannel(pool, channelId, reason);
          metrics.failed.inc(config.kind, failed);
          log.warn('channel disabled', { ...fields, reason, pendingFailed: failed });
          return { kind: 'stopped' };
        }
        log.warn('delivery failed', { ...fields, reason });
      }
      if (stop) {
        await flush();
        return stop;
      }
      if (!again && backlog <= batch.length) {
        // Nothing else was due when this claim was made: done without another claim. Anything routed since has
        // raised the wake flag, read as the lease is let go; retries falling due later are the sweeper's.
        if (digestMode) await deps.redis.del(digestKey);
        await flush();
        return { kind: 'idle' };
      }
    }
  } catch (error) {
    // Part-way through a claim (Redis or the database failed): what was sent is recorded, so receivers get no
    // repeats, and what was not is due again at once instead of held for the claim's hold. Best effort: the
    // error that ended the run is the one reported.
    await flush().catch(() => undefined);
    await giveBack(unsent).catch(() => undefined);
    throw error;
  }
}

/**
 * Runs a drain whose lease is held, lets go, and asks for the next run. Letting go also reads the channel's
 * wake flag, so a delivery routed while this run held the lease (whose wake found the lease taken) gets a run
 * at once instead of waiting for the sweeper.
 */
export async function drainWithLease(deps: DrainDeps, channelId: string, lease: DrainLease, log: Logger): Promise<DrainResult> {
  let result: RunResult;
  try {
    result = await runDrain(deps, channelId, lease, log);
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

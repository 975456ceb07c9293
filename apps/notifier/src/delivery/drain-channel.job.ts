import type pg from 'pg';
import type { Redis } from 'ioredis';
import { ChannelConfigError, deliver, type ChannelConfig, type ChannelMessage, type DeliveryAttempt, type Sender } from '@hashwatch/channels';
import type { Logger } from '@hashwatch/logger';
import type { Cipher } from '@hashwatch/secrets';
import { leaseMs, type NotifierOptions } from '../notifier-options';
import { matchingSource } from '../routing/channel-routing';
import { alertFor } from './alert-message';
import { channelConfig, disableChannel, loadChannel, migrateChat, routingChannel, type ChannelRow } from './channel-store';
import { claimNext, digestIdFor, failPending, markDelivered, markFailed, markRetry, releaseClaim, type ClaimedDelivery } from './delivery-store';
import { destinationOf, type Destination, type DestinationPace } from './destination-pace';
import { acquireDrainLease, drainKeys, type DrainLease } from './drain-lease';
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
}

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

function digestModeKey(prefix: string, channelId: string): string {
  return `${prefix}:notifier:digest:${channelId}`;
}

// A backlog that stays after the burst keeps the channel in digest mode for at most this long.
const DIGEST_MODE_TTL_MS = 60 * 60_000;

function messageFor(batch: ClaimedDelivery[], channel: ChannelRow, digest: boolean): { message: ChannelMessage; messageId: string } {
  const routing = routingChannel(channel);
  const alerts = batch.map((delivery) =>
    alertFor(delivery, matchingSource(routing, { ...delivery, kind: delivery.kind }, { trackLikes: true, trackReposts: true, trackComments: true })),
  );
  if (!digest || batch.length === 1) return { message: alerts[0]!, messageId: batch[0]!.message_id };
  return { message: { type: 'digest', alerts, total: alerts.length }, messageId: digestIdFor(batch.map((d) => d.id)) };
}

async function attempt(message: ChannelMessage, config: ChannelConfig, messageId: string, sender: Sender): Promise<DeliveryAttempt> {
  try {
    return await deliver(message, config, { messageId, timestamp: new Date() }, sender);
  } catch (error) {
    if (!(error instanceof ChannelConfigError)) throw error;
    return { outcome: { outcome: 'permanent', reason: `the channel cannot be used: ${error.message}`, disableChannel: true }, status: null };
  }
}

/**
 * Sends what is due for one channel, in detection order, one message at a time, within the destination's pace.
 * The deliveries table is the channel's queue; this run owns the channel through a Redis lease and gives its
 * worker slot back whenever it would have to wait, so a slow, failing or paced channel never holds up another.
 */
async function runDrain(deps: DrainDeps, channelId: string, lease: DrainLease, log: Logger): Promise<RunResult> {
  const { pool, options, metrics } = deps;
  let channel = await loadChannel(pool, channelId);
  if (!channel) return { kind: 'stopped' };
  if (!channel.enabled || channel.disabled_reason) {
    const reason = `not sent: the channel is disabled${channel.disabled_reason ? ` (${channel.disabled_reason})` : ''}`;
    const failed = await failPending(pool, channelId, reason);
    if (failed > 0) log.info('deliveries of a disabled channel failed', { channelId, failed });
    return { kind: 'stopped' };
  }
  // Unsealed here, for this run only.
  let config = channelConfig(channel, deps.cipher, deps.telegramBaseUrl);
  let destination: Destination = destinationOf(config, options.pace, deps.prefix);
  const digestKey = digestModeKey(deps.prefix, channelId);
  let digestMode = (await deps.redis.exists(digestKey)) === 1;
  const started = Date.now();
  let sends = 0;
  // Deliveries of the last message sent, recorded together with the next claim (one round trip per message).
  let delivered: { ids: string[]; status: number | null; digestId: string | null } | undefined;
  const flush = async () => {
    if (delivered) await markDelivered(pool, delivered.ids, delivered.status, delivered.digestId);
    delivered = undefined;
  };

  for (;;) {
    if (sends >= options.maxSendsPerRun || Date.now() - started >= options.runBudgetMs || !(await lease.keep())) {
      await flush();
      return sends >= options.maxSendsPerRun || Date.now() - started >= options.runBudgetMs ? { kind: 'yield' } : { kind: 'stopped' };
    }
    const { claimed: batch, backlog } = await claimNext(pool, channelId, {
      digestMode,
      digestThreshold: options.digestThreshold,
      digestSize: options.digestSize,
      holdMs: leaseMs(options),
      ...(delivered ? { delivered } : {}),
    });
    delivered = undefined;
    if (batch.length === 0) {
      if (digestMode) await deps.redis.del(digestKey);
      return { kind: 'idle' };
    }
    if (backlog > options.digestThreshold && !digestMode) {
      digestMode = true;
      await deps.redis.set(digestKey, '1', 'PX', DIGEST_MODE_TTL_MS);
      log.info('channel switched to digests', { channelId, backlogOver: options.digestThreshold });
    }
    // Claimed first, paced second: a channel with nothing due never spends a slot of its destination's budget.
    const waitMs = await deps.pace.reserve(destination);
    if (waitMs > 0) {
      await releaseClaim(pool, batch.map((delivery) => delivery.id));
      return { kind: 'paced', waitMs };
    }

    const ids = batch.map((delivery) => delivery.id);
    const digest = digestMode && batch.length > 1;
    const { message, messageId } = messageFor(batch, channel, digest);
    const sentAt = Date.now();
    const { outcome, status } = await attempt(message, config, messageId, deps.sender);
    sends += 1;
    metrics.sends.inc(config.kind);
    const fields = { channelId, kind: config.kind, deliveries: ids.length, digest, status, durationMs: Date.now() - sentAt };

    if (outcome.outcome === 'delivered') {
      delivered = { ids, status, digestId: digest ? messageId : null };
      metrics.delivered.inc(config.kind, ids.length);
      log.debug('delivered', fields);
      continue;
    }

    if (outcome.outcome === 'retry') {
      const rateLimited = status === 429;
      const attempts = Math.max(...batch.map((delivery) => delivery.attempts));
      const backoff = retryDelayMs(attempts, { baseMs: options.backoffBaseMs, maxMs: options.maxBackoffMs }, deps.random);
      // The target said when: never sooner (CONTRACT 5). Otherwise backoff, and a Retry-After on a 5xx extends it.
      const delayMs = rateLimited && outcome.afterMs !== undefined ? outcome.afterMs : Math.max(backoff, outcome.afterMs ?? 0);
      const { gaveUp } = await markRetry(pool, ids, { status, reason: outcome.reason, delayMs, retryWindowMs: options.retryWindowMs });
      metrics.retried.inc(config.kind, ids.length - gaveUp);
      if (gaveUp > 0) metrics.failed.inc(config.kind, gaveUp);
      const pauseMs = rateLimited ? delayMs : Math.min(delayMs, options.failurePauseMs);
      await deps.pace.block(destination, pauseMs);
      log.warn(gaveUp > 0 ? 'delivery failed after retries' : 'delivery will retry', { ...fields, reason: outcome.reason, delayMs, gaveUp });
      return { kind: 'paced', waitMs: pauseMs };
    }

    if (outcome.outcome === 'permanent' && outcome.migrateToChatId && channel.chat_id && outcome.migrateToChatId !== channel.chat_id) {
      // Telegram: the group moved to a supergroup. Follow it and resend at once (PLATFORMS e).
      await migrateChat(pool, channelId, channel.chat_id, outcome.migrateToChatId);
      await releaseClaim(pool, ids);
      log.info('telegram chat migrated', { channelId });
      channel = await loadChannel(pool, channelId);
      if (!channel) return { kind: 'stopped' };
      config = channelConfig(channel, deps.cipher, deps.telegramBaseUrl);
      destination = destinationOf(config, options.pace, deps.prefix);
      continue;
    }

    // Permanent: this message can never be delivered ('retry-plain' was already handled inside deliver()).
    const reason = outcome.reason;
    await markFailed(pool, ids, status, reason);
    metrics.failed.inc(config.kind, ids.length);
    if (outcome.outcome === 'permanent' && outcome.disableChannel) {
      await disableChannel(pool, channelId, reason);
      const failed = await failPending(pool, channelId, `not sent: the channel was disabled (${reason})`);
      metrics.failed.inc(config.kind, failed);
      log.warn('channel disabled', { ...fields, reason, pendingFailed: failed });
      return { kind: 'stopped' };
    }
    log.warn('delivery failed', { ...fields, reason });
  }
}

/**
 * One drain job: takes the channel's lease, sends, lets go, and asks for the next run. Letting go also reads
 * the channel's wake flag, so a delivery routed while this run held the lease (whose own job found the lease
 * taken) gets a run at once instead of waiting for the sweeper.
 */
export async function drainChannel(deps: DrainDeps, channelId: string, log: Logger): Promise<DrainResult> {
  const lease = await acquireDrainLease(deps.redis, drainKeys(deps.prefix, channelId), leaseMs(deps.options));
  if (!lease) return { kind: 'busy' };
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
  else if (result.kind === 'yield' || (result.kind === 'idle' && woken)) await deps.drains.wake(channelId, 0);
  return result;
}

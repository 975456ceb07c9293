import { takesDigests } from '@hashwatch/channels';
import type { Logger } from '@hashwatch/logger';
import { leaseStallMs } from '../notifier-options';
import { noticeRefusedSend, recordChannelFailure, recordChannelSuccess, refuseChannel, REFUSED_STATUSES } from '../health/channel-health';
import { migrateChat, type ChannelRow } from './channel-store';
import { claimNext, failPending, markDelivered, markFailed, markNoticeDelivered, markRetry, releaseClaim, reviveRetries, type ClaimedDelivery, type ClaimedNotice, type DeliveredMark } from './delivery-store';
import { liveChannelOf, type Attempt, type LiveChannel, type MessageStep, type OutcomeStep, type Sent } from './drain-steps';
import { alertMessages, noticeMessages, type ClaimedIds, type Outgoing } from './outgoing';
import type { DrainDeps, RunResult } from './drain-contract';
import { drainKeys, type DrainLease } from './drain-lease';
import { skipUnsendable } from './late-alerts';
import { retryDelayMs } from './retry-delay';
import { sendAttempt } from './send-attempt';
import { unsealForRun } from './unseal-for-run';
import { isWindowed, sendThroughWindow, type WindowRun } from './window-sends';

// The retrying flag outlives the retries it stands for (they end with the retry window).
const RETRYING_FLAG_MARGIN_MS = 60 * 60_000;

// A backlog that stays after the burst keeps the channel in digest mode for at most this long.
const DIGEST_MODE_TTL_MS = 60 * 60_000;

/**
 * One drain run: sends what is due for one channel, in detection order, within the destination's pace.
 * The deliveries table is the channel's queue; this run owns the channel through a Redis lease and gives its
 * worker slot back whenever it would have to wait, so a slow, failing or paced channel never holds up another.
 * One statement per claim marks the previous claim's messages delivered, reads the channel and claims the next
 * deliveries, a few at once when the destination's pace allows a burst.
 *
 * The lease is short and renewed in the background while the run makes progress, so a killed replica frees its
 * channels within one lease. It is checked right before every send (by the local clock), so a run that stalled
 * past its lease stops without sending. Its claims carry the lease's token: what it records or gives back
 * afterwards only touches deliveries no newer run has claimed.
 */
export class DrainRun implements WindowRun {
  private readonly claimToken: string;
  // Lease left for a send to start: two thirds of it, which the background heartbeat keeps while the run makes
  // progress, so the check is local. Every check of the lease asks for this much, so a run never goes on to
  // claim work it would then have to give back unsent.
  private readonly sendAheadMs: number;
  private readonly keys: { digest: string; retrying: string };
  private readonly started = Date.now();
  private readonly debug: boolean;
  private digestMode: boolean;
  private live: LiveChannel | undefined;
  private sends = 0;
  // The target took a message after failing: its waiting retries were made due (at most once a run).
  private revived = false;
  // Retries made due during this claim: the run claims again instead of ending idle.
  private revivedDue = false;
  // Deliveries of the messages sent since the last claim, recorded with the next claim.
  private delivered: DeliveredMark[] = [];
  // The delivery ids of the current claim, per message; those from `unsent` on were not sent yet.
  private claim: ClaimedIds[] = [];
  private unsent = 0;
  // Channel health: a send of this run failed (recorded), so the next one that succeeds records the recovery even
  // though the row read at the claim said the channel was healthy; and whether a recovery was recorded already.
  private failedInRun = false;
  private recovered = false;

  constructor(
    readonly deps: DrainDeps,
    readonly channelId: string,
    private readonly lease: DrainLease,
    readonly log: Logger,
  ) {
    this.claimToken = lease.token;
    this.sendAheadMs = (2 * deps.options.leaseMs) / 3;
    this.keys = drainKeys(deps.prefix, channelId);
    this.digestMode = lease.digestMode;
    this.debug = log.isLevelEnabled('debug');
  }

  async run(): Promise<RunResult> {
    try {
      for (;;) {
        const result = await this.claimAndSend();
        if (result) return result;
      }
    } catch (error) {
      // Part-way through a claim (Redis or the database failed): what was sent is recorded, so receivers get no
      // repeats, and what was not is due again at once instead of held for the claim's hold. Best effort: the
      // error that ended the run is the one reported.
      await this.flush().catch(() => undefined);
      await this.giveBack(this.unsent).catch(() => undefined);
      throw error;
    }
  }

  outOfTurn(): boolean {
    const { options } = this.deps;
    return this.sends >= options.maxSendsPerRun || Date.now() - this.started >= options.runBudgetMs;
  }

  async flush(): Promise<void> {
    const marks = this.delivered;
    this.delivered = [];
    await (this.deps.deliveredWriter ? this.deps.deliveredWriter.write(marks) : markDelivered(this.deps.pool, marks));
  }

  // Claimed but not sent (pace, a failure, the run's turn is over): due again at once, attempt not counted.
  // Given back once: the claim is forgotten before the statement, so attempts are never uncounted twice.
  private async giveBack(from: number): Promise<void> {
    const rest = this.claim.slice(from);
    this.claim = [];
    this.unsent = 0;
    for (const table of ['deliveries', 'notice_deliveries'] as const) {
      const ids = rest.filter((claimed) => claimed.table === table).flatMap((claimed) => claimed.ids);
      if (ids.length > 0) await releaseClaim(this.deps.pool, ids, this.claimToken, table);
    }
  }

  /** One claim and its sends; answers how the run ends, or undefined to claim again. */
  private async claimAndSend(): Promise<RunResult | undefined> {
    const { deps, channelId } = this;
    // Asked once: the time spent renewing the lease must not turn a lost lease into a yield (and a needless job).
    // An account at its sends in flight here (see sendMessage) claims nothing: it would only be given back.
    const over: RunResult | undefined = this.outOfTurn() ? { kind: 'yield' } : deps.accountSends.busy(channelId) ? { kind: 'paced', waitMs: deps.options.accountBusyWaitMs } : undefined;
    if (over || !(await this.lease.keep(this.sendAheadMs))) {
      await this.flush();
      return over ?? { kind: 'stopped' };
    }
    const { channel, claimed: batch, notices, backlog } = await this.claimNext();
    if (!channel) return { kind: 'stopped' };
    if (!channel.enabled || channel.disabled_reason) {
      const reason = `not sent: the channel is disabled${channel.disabled_reason ? ` (${channel.disabled_reason})` : ''}`;
      const failed = await failPending(deps.pool, channelId, reason);
      if (failed > 0) this.log.info('deliveries of a disabled channel failed', { channelId, failed });
      return { kind: 'stopped' };
    }
    const live = await this.liveChannel(channel, batch, notices);
    if (!('config' in live)) return live.stop;
    if (batch.length === 0 && notices.length === 0) {
      if (this.digestMode) await deps.redis.del(this.keys.digest);
      return { kind: 'idle' };
    }
    const chat = takesDigests(live.config.kind);
    const skipped = batch.length > 0 ? await skipUnsendable(deps, batch, this.claimToken, live.config.kind) : new Set<string>();
    if (skipped.size > 0) {
      const unsent = batch.filter((delivery) => !skipped.has(delivery.id));
      this.claim = [{ table: 'deliveries', ids: unsent.map((d) => d.id) }, { table: 'notice_deliveries', ids: notices.map((n) => n.id) }];
      await this.giveBack(0);
      return undefined;
    }
    if (chat && backlog > deps.options.digestThreshold && !this.digestMode) {
      this.digestMode = true;
      await deps.redis.set(this.keys.digest, '1', 'PX', DIGEST_MODE_TTL_MS);
      this.log.info('channel switched to digests', { channelId, backlogOver: deps.options.digestThreshold });
    }
    // Notices first: news about the monitoring itself goes before the alerts it may explain.
    const outgoing = [...noticeMessages(notices), ...(batch.length > 0 ? alertMessages(batch, live.row, this.digestMode && chat) : [])];
    this.claim = outgoing.map((message) => ({ table: message.table, ids: message.deliveries.map((delivery) => delivery.id) }));
    this.revivedDue = false;
    if (isWindowed(live)) {
      const step = await sendThroughWindow(this, live, outgoing);
      if (step.kind === 'end') return step.result;
      if (step.kind === 'claim-again') return undefined;
    } else {
      for (let index = 0; index < outgoing.length; index += 1) {
        const step = await this.sendMessage(live, outgoing, index);
        if (step.kind === 'end') return step.result;
        if (step.kind === 'claim-again') return undefined;
      }
    }
    // More notices may be due than one claim took; they are rare, so one more claim answers it.
    if (this.revivedDue || backlog > batch.length || notices.length > 0) return undefined;
    // Nothing else was due when this claim was made: done without another claim. Anything routed since has
    // raised the wake flag, read as the lease is let go; retries falling due later are the sweeper's.
    if (this.digestMode) await deps.redis.del(this.keys.digest);
    await this.flush();
    return { kind: 'idle' };
  }

  /** Records the previous claim's deliveries and claims the next (see claimNext). */
  private async claimNext(): Promise<Awaited<ReturnType<typeof claimNext>>> {
    const { deps, live } = this;
    const { options } = deps;
    // A channel that never takes digests (json) claims what its destination takes in one burst, backlog or not.
    const perItem = live && !takesDigests(live.config.kind) ? live.batch : undefined;
    const answer = await claimNext(deps.pool, this.channelId, {
      digestMode: this.digestMode && perItem === undefined,
      digestThreshold: options.digestThreshold,
      digestSize: perItem ?? options.digestSize,
      batch: live?.batch ?? deps.batchHints?.get(this.channelId) ?? 1,
      // Longer than the lease: a run that lost its lease while alive (a stall) may still be sending these, or
      // have sent them with their delivered mark not yet written; the run that takes the channel over must not
      // send them again meanwhile. A killed replica's claim waits this long; its channel, only the lease.
      holdMs: leaseStallMs(options),
      claimToken: this.claimToken,
      delivered: this.delivered,
    });
    this.delivered = [];
    this.claim = [
      { table: 'deliveries', ids: answer.claimed.map((delivery) => delivery.id) },
      { table: 'notice_deliveries', ids: answer.notices.map((send) => send.id) },
    ];
    this.unsent = 0;
    return answer;
  }

  /** The channel with its config, unsealed for this run only and again only when the row changed (a PUT, a chat migration). */
  private async liveChannel(channel: ChannelRow, batch: ClaimedDelivery[], notices: ClaimedNotice[]): Promise<LiveChannel | { stop: RunResult }> {
    const { deps } = this;
    const fingerprint = JSON.stringify(channel);
    if (this.live?.fingerprint === fingerprint) return this.live;
    const unsealed = await unsealForRun(deps, channel, { deliveries: batch, notice_deliveries: notices }, this.claimToken, this.log);
    if ('stop' in unsealed) {
      // Its claimed deliveries are recorded (to retry, or failed): none is given back.
      this.unsent = this.claim.length;
      await this.flush();
      return unsealed;
    }
    this.live = liveChannelOf(deps, this.channelId, channel, fingerprint, unsealed.config);
    return this.live;
  }

  /** Sends the message at `index` of the claim, within the destination's pace and the run's lease and turn. */
  private async sendMessage(live: LiveChannel, outgoing: Outgoing[], index: number): Promise<MessageStep> {
    const { deps, channelId } = this;
    if (index > 0 && this.outOfTurn()) return this.endRun(index, { kind: 'yield' });
    const out = outgoing[index] as Outgoing;
    // The account holds its share of this replica's sends (slow targets): the channel waits, its deliveries due
    // again unattempted, the slot to other accounts. Before the pace, which it would spend.
    if (!deps.accountSends.tryTake(live.row.user_id, channelId)) {
      if (this.debug) this.log.debug('account at its sends in flight; channel postponed', { channelId, waitMs: deps.options.accountBusyWaitMs });
      return this.endRun(index, { kind: 'paced', waitMs: deps.options.accountBusyWaitMs });
    }
    let attempt: Attempt;
    try {
      // Claimed first, paced second: a channel with nothing due never spends a slot of its destination's budget.
      const waitMs = await deps.pace.reserve(live.destination);
      if (waitMs > 0) return await this.endRun(index, { kind: 'paced', waitMs });
      // Last step before the send, after every await: a run that stalled past its lease must not send what
      // the run that took over may have claimed. Answered locally while enough of the lease is left.
      if (!(await this.lease.keep(this.sendAheadMs))) {
        this.log.warn('drain lease lost; stopped without sending', { channelId, notSent: outgoing.length - index });
        return await this.endRun(index, { kind: 'stopped' });
      }
      this.unsent = index + 1;
      attempt = await this.send(live, out, index);
    } finally {
      deps.accountSends.release(live.row.user_id);
    }
    const step = await this.handleOutcome(live, attempt);
    return step.kind === 'stop' ? this.endRun(index + 1, step.result) : step;
  }

  /** One HTTP send of the message at `index`, counted and timed. */
  async send(live: LiveChannel, out: Outgoing, index: number): Promise<Attempt> {
    const { deps, channelId } = this;
    const ids = out.deliveries.map((delivery) => delivery.id);
    const sentAt = Date.now();
    const result = await sendAttempt(out.message, live.config, out.messageId, deps.sender);
    const latencyMs = Date.now() - sentAt;
    const { status } = result;
    this.sends += 1;
    deps.metrics.sends.inc(live.config.kind);
    const fields = { channelId, kind: live.config.kind, deliveries: ids.length, digest: out.digest, status, durationMs: latencyMs };
    return { sent: { out, index, ids, status, timedOut: result.failure === 'timeout', latencyMs, fields }, outcome: result.outcome };
  }

  /** Records what came of a send, and says how the run goes on. */
  async handleOutcome(live: LiveChannel, { sent, outcome }: Attempt): Promise<OutcomeStep> {
    const { deps, channelId } = this;
    if (outcome.outcome === 'delivered') return sent.out.table === 'notice_deliveries' ? this.onNoticeDelivered(live, sent, outcome.pauseMs) : this.onDelivered(live, sent, outcome.pauseMs);
    if (outcome.outcome === 'retry') return this.onRetry(live, sent, outcome);
    if (outcome.outcome === 'permanent' && outcome.migrateToChatId && live.row.chat_id && outcome.migrateToChatId !== live.row.chat_id) {
      // Telegram: the group moved to a supergroup (the Bot API's migrate_to_chat_id). Follow it and resend at
      // once; the next claim reads the row with its new chat id.
      await migrateChat(deps.pool, channelId, live.row.chat_id, outcome.migrateToChatId);
      await this.giveBack(sent.index);
      this.log.info('telegram chat migrated', { channelId });
      return { kind: 'claim-again' };
    }
    return this.onPermanent(live, sent, outcome.reason, outcome.outcome === 'permanent' && outcome.disableChannel === true);
  }

  keepLease(): Promise<boolean> {
    return this.lease.keep(this.sendAheadMs);
  }

  setStarted(count: number): void {
    this.unsent = count;
  }

  /** Ends the run before the message at `index` is sent: it and the rest of the claim are given back, unsent. */
  async endRun(index: number, result: RunResult): Promise<MessageStep> {
    await this.giveBack(index);
    await this.flush();
    return { kind: 'end', result };
  }

  /** A notice was taken: recorded at once (they are rare), then as any delivered message. */
  private async onNoticeDelivered(live: LiveChannel, sent: Sent, pauseMs: number | undefined): Promise<MessageStep> {
    await markNoticeDelivered(this.deps.pool, sent.ids, this.claimToken, sent.status);
    return this.afterDelivered(live, sent, pauseMs);
  }

  private async onDelivered(live: LiveChannel, sent: Sent, pauseMs: number | undefined): Promise<MessageStep> {
    this.noteDelivered(sent);
    return this.afterDelivered(live, sent, pauseMs);
  }

  /** The message's deliveries are recorded delivered with the next claim, or the run's last flush. */
  noteDelivered(sent: Sent): void {
    for (const id of sent.ids) this.delivered.push({ id, status: sent.status, digestId: sent.out.digest ? sent.out.messageId : null, claimToken: this.claimToken });
  }

  private async afterDelivered(live: LiveChannel, sent: Sent, pauseMs: number | undefined): Promise<MessageStep> {
    const { deps, channelId } = this;
    deps.metrics.delivered.inc(live.config.kind, sent.ids.length);
    if (this.debug) this.log.debug('delivered', sent.fields);
    // The channel was failing (or told the account so): it is healthy again and its channel notices resolve.
    // Read from the row the claim answered, so a healthy channel costs nothing here.
    if (this.failedInRun || (!this.recovered && (live.row.failing_since || live.row.failure_noticed))) {
      this.failedInRun = false;
      this.recovered = true;
      const resolved = await recordChannelSuccess(deps.pool, channelId);
      if (resolved.length > 0) this.log.info('channel healthy again: notices resolved', { channelId, notices: resolved.map((notice) => notice.id) });
    }
    // The target takes messages again: the channel's deliveries waiting for a retry are due now. Known from
    // the flag a failure raised (read with the lease), or from this message being a retry itself.
    if (!this.revived && (this.lease.retriesWaiting || sent.out.deliveries.some((delivery) => delivery.attempts > 1))) {
      this.revived = true;
      const due = await reviveRetries(deps.pool, channelId, this.claimToken);
      await deps.redis.del(this.keys.retrying);
      // The circuit's probe (or any send after a failure) got through: time-outs count from none again.
      await deps.pace.answered(live.destination);
      if (due > 0) {
        // Counted after the claim's backlog: the run goes on to claim them instead of ending idle.
        this.revivedDue = true;
        this.log.info('target accepts again: waiting retries are due now', { channelId, due });
      }
    }
    // The target said its budget is spent: the destination waits, so the next reservation answers paced.
    if (pauseMs !== undefined) await deps.pace.block(live.destination, pauseMs);
    return { kind: 'next' };
  }

  private async onRetry(live: LiveChannel, sent: Sent, outcome: { reason: string; afterMs?: number | undefined }): Promise<OutcomeStep> {
    const { deps } = this;
    const { options } = deps;
    const rateLimited = sent.status === 429;
    const attempts = Math.max(...sent.out.deliveries.map((delivery) => delivery.attempts));
    const backoff = retryDelayMs(attempts, { baseMs: options.backoffBaseMs, maxMs: options.maxBackoffMs }, deps.random);
    // A 429 that says when is never retried sooner. Otherwise backoff, and a Retry-After on a 5xx extends it.
    const delayMs = rateLimited && outcome.afterMs !== undefined ? outcome.afterMs : Math.max(backoff, outcome.afterMs ?? 0);
    const retry = { status: sent.status, reason: outcome.reason, delayMs, retryWindowMs: options.retryWindowMs };
    const { gaveUp } = await markRetry(deps.pool, sent.ids, this.claimToken, retry, sent.out.table);
    // A 429 is a live target telling us when to come back: not a failing channel.
    if (!rateLimited) await this.recordFailure(sent, outcome.reason);
    // Read with the next lease: the first message this target takes again makes these due at once.
    await deps.redis.set(this.keys.retrying, '1', 'PX', options.retryWindowMs + RETRYING_FLAG_MARGIN_MS);
    deps.metrics.retried.inc(live.config.kind, sent.ids.length - gaveUp);
    if (gaveUp > 0) deps.metrics.failed.inc(live.config.kind, gaveUp);
    // A target that keeps timing out would hold a slot per send: its circuit opens on every replica and its
    // deliveries (any channel's to it) wait, never dropped, until a probe gets through (the block below).
    const circuit = { timeouts: options.circuitTimeouts, openMs: options.circuitOpenMs, maxOpenMs: options.circuitMaxOpenMs };
    const openMs = sent.timedOut ? await deps.pace.timedOut(live.destination, circuit) : 0;
    if (!sent.timedOut && sent.status !== null) await deps.pace.answered(live.destination);
    if (openMs > 0) this.log.warn('circuit opened: the destination keeps timing out', { ...sent.fields, openMs });
    const pauseMs = Math.max(openMs, rateLimited ? delayMs : Math.min(delayMs, options.failurePauseMs));
    await deps.pace.block(live.destination, pauseMs);
    this.log.warn(gaveUp > 0 ? 'delivery failed after retries' : 'delivery will retry', { ...sent.fields, reason: outcome.reason, delayMs, gaveUp });
    return { kind: 'stop', result: { kind: 'paced', waitMs: pauseMs } };
  }

  /** This message can never be delivered ('retry-plain' was already handled inside deliver()). */
  private async onPermanent(live: LiveChannel, sent: Sent, reason: string, disable: boolean): Promise<MessageStep> {
    const { deps, channelId } = this;
    await markFailed(deps.pool, sent.ids, this.claimToken, sent.status, reason, sent.out.table);
    deps.metrics.failed.inc(live.config.kind, sent.ids.length);
    if (!disable) {
      if (sent.status !== null && REFUSED_STATUSES.has(sent.status)) {
        // CONTRACT 8: a 401, 403 or 404 is told at once, even where the channel stays on (json receivers).
        this.failedInRun = true;
        const notice = await noticeRefusedSend(deps.pool, channelId, { platform: live.config.kind, status: sent.status, reason });
        if (notice) this.log.info('channel refused a send: notice raised', { channelId, notice: notice.id });
      } else {
        await this.recordFailure(sent, reason);
      }
      this.log.warn('delivery failed', { ...sent.fields, reason });
      return { kind: 'next' };
    }
    await this.flush();
    // Refused for good: switched off at once (never retried for ever) and the account told, in one transaction.
    const { failed, notice } = await refuseChannel(deps.pool, channelId, { platform: live.config.kind, status: sent.status, reason });
    deps.metrics.failed.inc(live.config.kind, failed);
    this.log.warn('channel disabled', { ...sent.fields, reason, pendingFailed: failed, notice: notice?.id ?? null });
    return { kind: 'end', result: { kind: 'stopped' } };
  }

  private async recordFailure(sent: Sent, reason: string): Promise<void> {
    this.failedInRun = true;
    await recordChannelFailure(this.deps.pool, this.channelId, { status: sent.status, reason });
  }
}


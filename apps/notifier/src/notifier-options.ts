/** At most `limit` messages in any `windowMs` (a sliding window, as the platforms count). */
export interface PaceRule {
  limit: number;
  windowMs: number;
}

/**
 * The adaptive window of a json receiver: how many sends may be in flight to it at once. It starts at `initial`,
 * grows while the receiver answers 2xx quickly and shrinks on its signals (destination-pace.ts, SETTLE).
 */
export interface WindowRule {
  initial: number;
  /** The largest window: sends in flight to one receiver, over every replica. */
  max: number;
  /** An answer slower than the receiver's quickest × `slowFactor` + `slowMarginMs` counts as a sign of overload. */
  slowFactor: number;
  slowMarginMs: number;
  /** A receiver unused this long starts over from `initial`. */
  idleMs: number;
  /** Its quickest answer counts this long; then the next answer is the new quickest (a receiver slower for good). */
  baseLifetimeMs: number;
}

/** Pacing per destination kind. Telegram has separate rules for one chat, a group chat and the whole bot. */
export interface PaceRules {
  discord: PaceRule[];
  slack: PaceRule[];
  /** Rate rules every json receiver gets (none by default: its window paces it, and its own `max_per_second`). */
  json: PaceRule[];
  jsonWindow: WindowRule;
  telegramChat: PaceRule[];
  /** Added to `telegramChat` for groups and supergroups (negative chat ids). */
  telegramGroup: PaceRule[];
  /** Shared by every chat of one bot token. */
  telegramBot: PaceRule[];
}

/**
 * The platforms' published rate guidance. Discord: about 5 per 2 s per webhook (a Discord staff comment; the
 * documented rule is to read the rate-limit headers) and 30 messages a minute per channel. Slack: about 1 per
 * second per webhook URL. Telegram (Bot FAQ): 1 per second per chat, 20 a minute per group, about 30 per second
 * per bot. Generic JSON webhooks have no published limit: each is served as fast as it answers, through its
 * adaptive window (2 to start, up to 32 in flight; an answer over twice its quickest plus 50 ms is slow), with the
 * channel's `max_per_second` as a ceiling when it sets one (docs/decisions/delivery.md).
 */
export const DEFAULT_PACE: PaceRules = {
  discord: [
    { limit: 5, windowMs: 2_000 },
    { limit: 30, windowMs: 60_000 },
  ],
  slack: [{ limit: 1, windowMs: 1_000 }],
  json: [],
  jsonWindow: { initial: 2, max: 32, slowFactor: 2, slowMarginMs: 50, idleMs: 10 * 60_000, baseLifetimeMs: 5 * 60_000 },
  telegramChat: [{ limit: 1, windowMs: 1_000 }],
  telegramGroup: [{ limit: 20, windowMs: 60_000 }],
  telegramBot: [{ limit: 30, windowMs: 1_000 }],
};

/** How the notifier delivers; every field has a production default (see {@link resolveNotifierOptions}). */
export interface NotifierOptions {
  /** Deadline of one HTTP send, connect to last byte. */
  sendTimeoutMs: number;
  /**
   * Sends one account may have in flight at once in one replica. An account whose sends are all slow (tarpits)
   * holds at most this many of the replica's `concurrency` slots; its further deliveries wait `accountBusyWaitMs`.
   */
  maxSendsPerAccount: number;
  /** How long a channel whose account is at `maxSendsPerAccount` waits before it is drained again. */
  accountBusyWaitMs: number;
  /** Consecutive time-outs of one destination that open its circuit (nothing is sent to it while open). */
  circuitTimeouts: number;
  /** How long the circuit stays open the first time; doubled for each further time-out, up to `circuitMaxOpenMs`. */
  circuitOpenMs: number;
  circuitMaxOpenMs: number;
  /** Jobs one replica runs at once (routing and drains each). Drains are I/O-bound and short. */
  concurrency: number;
  /** First retry delay after a transient failure; doubles per attempt up to `maxBackoffMs`, with jitter. */
  backoffBaseMs: number;
  maxBackoffMs: number;
  /** A delivery keeps being retried until this long after it was created, then it fails. At least 24 h. */
  retryWindowMs: number;
  /** After a transient failure the channel rests at most this long before its next due delivery is tried. */
  failurePauseMs: number;
  /** A due backlog larger than this turns a chat channel (never a json one) to digests until it is caught up. */
  digestThreshold: number;
  /** Alerts per digest message (the channels package lists at most 10). */
  digestSize: number;
  /**
   * Deliveries one claim takes when the destination's pace allows a burst of that many (not in digest mode): what
   * one run of a json receiver may have in flight at once, and so the claims per alert.
   */
  claimBatch: number;
  /**
   * Channels one replica drains at once in the background right after routing, without a queue job. A replica
   * with this many running hands further wakes to the delivery queue. 0 turns inline drains off.
   */
  localDrains: number;
  /** Messages one drain run sends before it yields its worker slot to other channels. */
  maxSendsPerRun: number;
  /** Time one drain run may take before it yields (checked between sends). */
  runBudgetMs: number;
  /** How often a replica looks for channels with due deliveries and no drain on the way (the backstop). */
  sweepIntervalMs: number;
  /** How often the outbox relay scheduler ticks. */
  relayIntervalMs: number;
  /**
   * Length of a drain's lease on its channel, and how long its claimed deliveries are held: what a killed replica
   * costs its channels. A live run renews it in the background (see {@link leaseStallMs}).
   */
  leaseMs: number;
  /**
   * A channel whose sends have all failed this long (transient errors: 5xx, time-outs, refused connections) raises
   * `channel_failing` (CONTRACT 8: 1 h). A platform refusing it for good raises it at once.
   */
  channelFailingAfterMs: number;
  /** A webhook channel whose sends have all failed this long is switched off with `channel_disabled` (CONTRACT 8: 24 h). */
  channelDisableAfterMs: number;
  /**
   * An item detected more than this long after its posted_at (catch-up after an outage of the scanner or of X) is
   * late: json channels get it flagged `late: true`, chat platforms (Discord, Slack, Telegram) not at all.
   */
  alertMaxAgeMs: number;
  pace: PaceRules;
}

export function resolveNotifierOptions(overrides: Partial<NotifierOptions> = {}): NotifierOptions {
  return {
    sendTimeoutMs: 10_000,
    maxSendsPerAccount: 20,
    accountBusyWaitMs: 1_000,
    circuitTimeouts: 3,
    circuitOpenMs: 30_000,
    circuitMaxOpenMs: 10 * 60_000,
    concurrency: 50,
    backoffBaseMs: 5_000,
    maxBackoffMs: 60 * 60_000,
    retryWindowMs: 24 * 60 * 60_000,
    failurePauseMs: 2_000,
    digestThreshold: 20,
    digestSize: 10,
    claimBatch: 20,
    localDrains: 50,
    maxSendsPerRun: 50,
    runBudgetMs: 5_000,
    sweepIntervalMs: 1_000,
    relayIntervalMs: 1_000,
    leaseMs: 5_000,
    channelFailingAfterMs: 60 * 60_000,
    channelDisableAfterMs: 24 * 60 * 60_000,
    alertMaxAgeMs: 900_000,
    ...overrides,
    pace: { ...DEFAULT_PACE, ...overrides.pace },
  };
}

/**
 * The longest one step of a drain run (a send, with the database work around it) may take while its lease is
 * renewed in the background. A run stuck in one step for longer stops renewing, loses the channel within one
 * lease, and finds that out before its next send; a process that died stops renewing at once.
 */
export function leaseStallMs(options: NotifierOptions): number {
  return options.sendTimeoutMs + Math.max(2_000, Math.min(options.sendTimeoutMs, 10_000));
}

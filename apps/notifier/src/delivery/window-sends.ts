import type { DeliveryAttempt } from '@hashwatch/channels';
import type { Logger } from '@hashwatch/logger';
import type { Destination, ReceiverWindow, WindowSignal } from './destination-pace';
import type { DrainDeps, RunResult } from './drain-contract';
import type { Attempt, LiveChannel, MessageStep, OutcomeStep, Sent } from './drain-steps';
import type { Outgoing } from './outgoing';

/** A channel whose destination has an adaptive window (json webhooks). */
export type WindowedChannel = LiveChannel & { destination: Destination & { window: ReceiverWindow } };

export function isWindowed(live: LiveChannel): live is WindowedChannel {
  return live.destination.window !== undefined;
}

/** What sending through a window needs of its drain run. */
export interface WindowRun {
  deps: DrainDeps;
  channelId: string;
  log: Logger;
  /** The run used its share of sends or time. */
  outOfTurn(): boolean;
  /** Whether enough of the run's lease is left to start a send. */
  keepLease(): Promise<boolean>;
  send(live: LiveChannel, out: Outgoing, index: number): Promise<Attempt>;
  handleOutcome(live: LiveChannel, attempt: Attempt): Promise<OutcomeStep>;
  /** Notes a delivered message for the run's next flush (while the run is failing). */
  noteDelivered(sent: Sent): void;
  /** Messages of the claim started so far: the run's error handler gives back only those after them. */
  setStarted(count: number): void;
  /** Records what was delivered. */
  flush(): Promise<void>;
  /** Gives back the claim's messages from `index` on, unsent, records what was delivered, and ends the run. */
  endRun(index: number, result: RunResult): Promise<MessageStep>;
}

/** How sending a claim through the window ended. */
interface WindowEnd {
  /** Messages started, from the claim's first: the rest were never sent. */
  started: number;
  /** Why no more were started, when the claim was not all sent. */
  stop?: RunResult;
  /** The channel was switched off for good meanwhile: nothing is to be given back. */
  refused: boolean;
  /** What failed the run (Redis, the database), after every send in flight was awaited. */
  failure?: { error: unknown };
}

/** A send that came back: its permit, and its attempt or the error it threw. */
type Landed = { index: number; permit: string } & ({ attempt: Attempt } | { error: unknown });

/** A windowed destination is full with other runs' sends (another channel or replica posting to the same receiver). */
const WINDOW_FULL_WAIT_MS = 50;

/**
 * What a send tells the receiver's window: a 2xx, or a refusal of this message (4xx other than 429), is an
 * answer (quick or slow by its latency); a 429, a 5xx, a time-out or a failed connection is a sign to back off.
 */
function windowSignal(outcome: DeliveryAttempt['outcome']): WindowSignal {
  return outcome.outcome === 'retry' ? 'backoff' : 'ok';
}

/**
 * Sends a claim to a receiver with an adaptive window (json webhooks): in claim order, as many at once as its
 * window admits (over every replica, destination-pace.ts) and the account's sends in flight allow, each recorded
 * as it comes back and its answer fed to the window. Messages of one item (orderKey) go one after the other. A
 * message that ends the run (a 429, a failure, the turn, the lease) stops further starts; what is in flight is
 * awaited and recorded, what was not started is given back.
 */
export async function sendThroughWindow(run: WindowRun, live: WindowedChannel, outgoing: Outgoing[]): Promise<MessageStep> {
  const end = await new WindowSends(run, live, outgoing).sendAll();
  // Sent is sent: the run's error handler gives back only what was never started.
  run.setStarted(end.started);
  if (end.failure !== undefined) throw end.failure.error;
  if (end.refused) {
    await run.flush();
    return { kind: 'end', result: end.stop ?? { kind: 'stopped' } };
  }
  if (end.stop !== undefined) return run.endRun(end.started, end.stop);
  return { kind: 'next' };
}

class WindowSends {
  private readonly flying = new Map<number, Promise<Landed>>();
  // The permit of each send in flight, renewed while it is.
  private readonly permits = new Map<number, string>();
  private readonly keysInFlight = new Set<string>();
  // A permit lives as long as a drain's lease and is renewed every third of it while its send is in flight: a killed
  // replica's permits lapse within one lease, as its channels do, and hold its receivers' windows no longer.
  private readonly permitMs: number;
  private readonly userId: string;
  private next = 0;
  private stop: RunResult | undefined;
  private refused = false;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly run: WindowRun,
    private readonly live: WindowedChannel,
    private readonly outgoing: Outgoing[],
  ) {
    this.permitMs = run.deps.options.leaseMs;
    this.userId = live.row.user_id;
  }

  async sendAll(): Promise<WindowEnd> {
    const renewal = setInterval(() => void this.renewPermits(), Math.max(1, Math.floor(this.permitMs / 3)));
    try {
      return await this.sendEach();
    } finally {
      clearInterval(renewal);
    }
  }

  /** Best effort: a permit that lapses while its send is in flight only lets the window take one more for a while. */
  private async renewPermits(): Promise<void> {
    try {
      await this.run.deps.pace.renew(this.live.destination, [...this.permits.values()], this.permitMs);
    } catch (error) {
      this.run.log.debug('window permits not renewed', { channelId: this.run.channelId, error });
    }
  }

  private async sendEach(): Promise<WindowEnd> {
    const { deps } = this.run;
    while (this.next < this.outgoing.length || this.flying.size > 0) {
      if (this.stop === undefined && this.failure === undefined && this.next < this.outgoing.length) {
        try {
          this.stop = await this.startSends();
        } catch (error) {
          this.failure = { error };
        }
      }
      if (this.flying.size === 0) break;
      const landed = await Promise.race(this.flying.values());
      this.flying.delete(landed.index);
      this.permits.delete(landed.index);
      this.keysInFlight.delete((this.outgoing[landed.index] as Outgoing).orderKey);
      deps.accountSends.release(this.userId);
      try {
        await this.record(landed);
      } catch (error) {
        this.failure ??= { error };
      }
    }
    return { started: this.next, refused: this.refused, ...(this.stop ? { stop: this.stop } : {}), ...(this.failure ? { failure: this.failure } : {}) };
  }

  /**
   * Frees the send's permit with what it tells the window, and records the send as the run records any. The window
   * is advice: a settle that fails (Redis away) leaves the permit to lapse and never keeps a send from being recorded.
   */
  private async record(landed: Landed): Promise<void> {
    const signal = 'error' in landed ? 'backoff' : windowSignal(landed.attempt.outcome);
    const latencyMs = 'error' in landed ? 0 : landed.attempt.sent.latencyMs;
    await this.run.deps.pace.settle(this.live.destination, landed.permit, signal, latencyMs).catch((error: unknown) => {
      this.run.log.debug('window permit not settled', { channelId: this.run.channelId, error });
    });
    if ('error' in landed) throw landed.error;
    const { sent, outcome } = landed.attempt;
    if (this.failure !== undefined) {
      // The run is failing (Redis or the database): what was delivered is recorded with the flush that follows.
      if (outcome.outcome === 'delivered' && sent.out.table === 'deliveries') this.run.noteDelivered(sent);
      return;
    }
    const step = await this.run.handleOutcome(this.live, landed.attempt);
    if (step.kind === 'end') {
      // Switched off for good (its pending deliveries failed with it): nothing is given back.
      this.refused = true;
      this.stop ??= step.result;
    } else if (step.kind === 'stop') {
      this.stop ??= step.result;
    } else if (step.kind === 'claim-again') {
      this.stop ??= { kind: 'yield' };
    }
  }

  /**
   * Starts the next sends, as many as are ready (no message of their item in flight), the account may have in flight
   * here and the window admits. Answers how the run ends when nothing could start and nothing is in flight to wait for.
   */
  private async startSends(): Promise<RunResult | undefined> {
    const { run, live, outgoing, flying } = this;
    const { deps, channelId } = run;
    if (this.next > 0 && run.outOfTurn()) return { kind: 'yield' };
    // Ready: in claim order, up to the first message whose item has a message in flight or earlier in line.
    const keys = new Set(this.keysInFlight);
    let ready = 0;
    while (this.next + ready < outgoing.length && !keys.has((outgoing[this.next + ready] as Outgoing).orderKey)) {
      keys.add((outgoing[this.next + ready] as Outgoing).orderKey);
      ready += 1;
    }
    if (ready === 0) return undefined;
    let slots = 0;
    while (slots < ready && deps.accountSends.tryTake(this.userId, channelId)) slots += 1;
    if (slots === 0) return flying.size === 0 ? { kind: 'paced', waitMs: deps.options.accountBusyWaitMs } : undefined;
    const releaseSlots = (count: number) => {
      for (let i = 0; i < count; i += 1) deps.accountSends.release(this.userId);
    };
    let permits: string[];
    try {
      const admission = await deps.pace.admit(live.destination, slots, this.permitMs);
      permits = admission.permits;
      releaseSlots(slots - permits.length);
      if (permits.length === 0) {
        if (admission.waitMs > 0) return { kind: 'paced', waitMs: admission.waitMs };
        return flying.size === 0 ? { kind: 'paced', waitMs: WINDOW_FULL_WAIT_MS } : undefined;
      }
    } catch (error) {
      releaseSlots(slots);
      throw error;
    }
    // As before every send: a run that stalled past its lease must not send what another run may have claimed.
    let kept: boolean;
    try {
      kept = await run.keepLease();
    } catch (error) {
      releaseSlots(permits.length);
      throw error;
    }
    if (!kept) {
      releaseSlots(permits.length);
      for (const permit of permits) await deps.pace.settle(live.destination, permit, 'unused', 0);
      run.log.warn('drain lease lost; stopped without sending', { channelId, notSent: outgoing.length - this.next });
      return { kind: 'stopped' };
    }
    for (const permit of permits) {
      const index = this.next;
      this.next += 1;
      const out = outgoing[index] as Outgoing;
      this.keysInFlight.add(out.orderKey);
      this.permits.set(index, permit);
      flying.set(index, run.send(live, out, index).then(
        (attempt): Landed => ({ index, permit, attempt }),
        (error: unknown): Landed => ({ index, permit, error }),
      ));
    }
    return undefined;
  }
}

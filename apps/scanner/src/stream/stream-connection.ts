import type pg from 'pg';
import type { Logger } from '@hashwatch/logger';
import type { XClient, XStreamPost } from '@hashwatch/x-api';
import type { ScanContext, TickSummary } from '../scan-pack';
import { recordConnection, recordCoverage, touchStreamedTracks, type StreamTiming } from './coverage';
import { storePosts } from './stream-store';

// How often the tracks the stream serves show it in their scan health (last_scanned_at).
const TRACK_HEALTH_EVERY_MS = 60_000;

/** What one connection needs from its holder. */
export interface ConnectionDeps {
  pool: pg.Pool;
  x: XClient;
  logger: Logger;
  /** The store path's context (pool, queues, metrics, notices). */
  store: Pick<ScanContext, 'pool' | 'queues' | 'logger' | 'metrics' | 'notices'>;
  timing: StreamTiming;
  heartbeatMs: number;
  syncEveryMs: number;
  flushEveryMs: number;
  maxBatch: number;
  readTimeoutMs?: number | undefined;
  /** Syncs the rules, marking sources as streamed (the connection is live). */
  syncRules(): Promise<unknown>;
  /** The holder's lock session, checked at every heartbeat. */
  lock: pg.PoolClient;
}

/**
 * One connection to the filtered stream, from the connect call to its end: posts buffered and stored in batches in
 * arrival order, the coverage recorded at each heartbeat, the rules synced every `syncEveryMs`.
 *
 * `safeUntil` is the instant (local clock) before which every post received is stored. It moves after each batch
 * commits, and with a keep-alive or a post received while nothing waits to be stored. A batch that fails to store
 * freezes it and ends the connection: the next connection's gap reaches back to the last coverage recorded, so the
 * failed posts are back-filled by search.
 */
export class StreamConnection {
  private readonly abort = new AbortController();
  private readonly buffer: XStreamPost[] = [];
  private readonly summary: TickSummary = { claimed: 0, scanned: 0, failed: 0, requests: 0, stored: 0, merged: 0, overQuota: 0 };
  private flushing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private ready: Promise<void> | null = null;
  private lastActivity = 0;
  private safeUntil = 0;
  private connectedAt = 0;
  private lastSync = 0;
  private lastTouch = 0;
  private failed = false;
  private beating: Promise<void> | null = null;

  constructor(private readonly deps: ConnectionDeps) {}

  get isConnected(): boolean {
    return this.connectedAt > 0 && !this.abort.signal.aborted;
  }

  /** Ends the connection (the holder stops, or lost its lock). */
  close(): void {
    this.abort.abort();
  }

  /** Connects and reads until the connection ends; answers how long it was open (0: it never opened). */
  async run(): Promise<{ connectedFor: number; failed: boolean }> {
    const { metrics } = this.deps.store;
    let thrown: { error: unknown } | null = null;
    try {
      await this.deps.x.openStream({
        signal: this.abort.signal,
        ...(this.deps.readTimeoutMs ? { readTimeoutMs: this.deps.readTimeoutMs } : {}),
        onConnected: (at) => this.connected(at),
        onActivity: (at) => this.activity(at),
        onPost: async (event) => {
          metrics.streamPostsReceived.inc();
          this.buffer.push(event);
          if (this.buffer.length >= this.deps.maxBatch) await this.flush();
          else this.flushTimer ??= setTimeout(() => void this.flush(), this.deps.flushEveryMs);
        },
      });
    } catch (error) {
      thrown = { error };
    }
    const openedAt = this.connectedAt;
    await this.finish();
    if (thrown) throw thrown.error;
    return { connectedFor: openedAt > 0 ? Date.now() - openedAt : 0, failed: this.failed };
  }

  private connected(at: number): void {
    this.connectedAt = at;
    this.lastActivity = at;
    this.safeUntil = at;
    this.deps.store.metrics.streamConnected.set(1);
    this.deps.logger.info('stream connected');
    // The gap since the last coverage is on record before the coverage can move; the stream is live from then on,
    // not from its first heartbeat, so a source it serves is not searched meanwhile.
    this.ready = recordConnection(this.deps.pool, this.deps.timing)
      .then(async ({ gapId }) => {
        if (gapId) this.deps.logger.info('stream gap recorded', { gapId });
        await recordCoverage(this.deps.pool, Date.now() - this.safeUntil);
      })
      .catch((error: unknown) => this.fail('connection record', error));
    // The sources join the stream now that it is live; a sync that fails is retried at the next beat.
    this.lastSync = 0;
    this.heartbeat = setInterval(() => void this.beat(), this.deps.heartbeatMs);
  }

  private activity(at: number): void {
    this.lastActivity = at;
    if (this.buffer.length > 0) return;
    // Nothing waits to be stored: once the batch in flight (if any) committed, everything before `at` is stored.
    void this.flushing.then(() => {
      if (this.buffer.length === 0 && !this.failed) this.safeUntil = Math.max(this.safeUntil, at);
    });
  }

  private fail(what: string, error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.deps.logger.error(`stream ${what} failed; reconnecting, the gap is back-filled`, { error });
    this.abort.abort();
  }

  /** Stores what has arrived, in one transaction, after any batch still in flight. */
  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.flushing = this.flushing.then(async () => {
      if (this.failed || this.buffer.length === 0) return;
      const batch = this.buffer.splice(0, this.buffer.length);
      try {
        await storePosts(this.deps.store, batch.map((event) => event.post), { postsRead: batch.length, requests: 0 }, this.summary);
        this.deps.store.metrics.streamPostsStored.inc(batch.length);
        const next = this.buffer[0];
        this.safeUntil = next ? next.receivedAt - 1 : Math.max(this.safeUntil, this.lastActivity);
      } catch (error) {
        this.fail('store', error);
      }
    });
    return this.flushing;
  }

  /**
   * Every heartbeat: the lock still held and the coverage recorded (either failing ends the connection: coverage
   * must not be claimed without them), then the rules synced and the tracks' health written when due (a failure
   * there, say X refusing a rule write for a while, is logged and retried at the next beat; the connection holds).
   */
  private beat(): Promise<void> {
    if (this.failed || !this.ready || this.beating) return this.beating ?? Promise.resolve();
    const ready = this.ready;
    this.beating = (async () => {
      try {
        await ready;
        await this.deps.lock.query('SELECT 1');
        if (this.failed) return;
        await recordCoverage(this.deps.pool, Date.now() - this.safeUntil);
      } catch (error) {
        this.fail('heartbeat', error);
        return;
      }
      try {
        if (Date.now() - this.lastSync >= this.deps.syncEveryMs) {
          this.lastSync = Date.now();
          await this.deps.syncRules();
        }
        if (Date.now() - this.lastTouch >= TRACK_HEALTH_EVERY_MS) {
          this.lastTouch = Date.now();
          await touchStreamedTracks(this.deps.pool, TRACK_HEALTH_EVERY_MS / 1000);
        }
      } catch (error) {
        this.deps.logger.warn('stream rules or track health not synced; retried at the next heartbeat', { error });
      }
    })().finally(() => {
      this.beating = null;
    });
    return this.beating;
  }

  /** After the connection ended: what arrived is stored and covered before the next connection records its gap. */
  private async finish(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    // A beat in flight (a rule sync, a coverage write) ends before the connection is over.
    await this.beating;
    this.deps.store.metrics.streamConnected.set(0);
    await this.flush();
    if (this.ready) await this.ready;
    if (this.connectedAt > 0 && !this.failed) {
      await recordCoverage(this.deps.pool, Date.now() - this.safeUntil).catch((error: unknown) => this.deps.logger.warn('stream coverage not recorded', { error }));
    }
    this.connectedAt = 0;
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Logger } from '@hashwatch/logger';
import type { Queues } from '@hashwatch/queues';
import { streamReconnectDelayMs, XRateLimitedError, XUnavailableError, type XClient } from '@hashwatch/x-api';
import { DEFAULT_SOURCE_NOTICE_SETTINGS, type SourceNoticeSettings } from '../notices/source-notices';
import { createScannerMetrics, type ScannerMetrics } from '../scanner-metrics';
import { DEFAULT_STREAM_TIMING, HEARTBEAT_MS, type StreamTiming } from './coverage';
import type { RuleLimits } from './rule-plan';
import { syncStreamRules, type RuleSyncResult } from './rule-sync';
import { StreamConnection, type ConnectionDeps } from './stream-connection';

type StreamConnectionStore = ConnectionDeps['store'];

/** First key of the advisory lock held by the one replica that keeps the stream (second key 1). */
export const STREAM_LOCK_CLASS = 0x5ca8;

export interface StreamHolderOptions {
  pool: pg.Pool;
  /** Direct PostgreSQL sessions (DATABASE_DIRECT_URL) for the holder's session lock; default `pool`. */
  sessionPool?: pg.Pool;
  x: XClient;
  queues: Queues;
  logger: Logger;
  limits: RuleLimits;
  metrics?: ScannerMetrics;
  notices?: Partial<SourceNoticeSettings>;
  /** How often the holder writes its coverage. Default 5 s (coverage.ts). */
  heartbeatMs?: number;
  /** How often rules follow the sources while connected. Default 15 s. */
  syncEveryMs?: number;
  /** How often a replica not holding the stream tries to take it. Default 5 s. */
  lockRetryMs?: number;
  /** No byte for this long ends the connection (X sends a keep-alive every 20 s). Default: the client's. */
  readTimeoutMs?: number;
  /** Posts received are stored at least this often, in one transaction. Default 200 ms. */
  flushEveryMs?: number;
  /** ...or as soon as this many are waiting. Default 500. */
  maxBatch?: number;
  /** A connection that ends sooner than this after it was made counts as a failed attempt for back-off. Default 30 s. */
  stableAfterMs?: number;
  /** Margins of the coverage (coverage.ts). Default 30 s around gaps, 60 s before the stream counts as down. */
  timing?: StreamTiming;
}

export interface StreamHolder {
  /** Whether this replica holds the stream now. */
  holding(): boolean;
  /** Whether this replica's connection to X is open now. */
  connected(): boolean;
  /** Ends the connection, stores what was received, records coverage, and lets the stream go. */
  stop(): Promise<void>;
}

/** The advisory lock that makes one replica the holder: a session lock, gone the moment its process or connection dies. */
async function tryLock(pool: pg.Pool): Promise<pg.PoolClient | null> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, 1) AS ok', [STREAM_LOCK_CLASS]);
    if (rows[0]?.ok) return client;
    client.release();
    return null;
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
}

type BackoffKind = 'network' | 'http' | 'rate_limited';

function kindOf(error: unknown): BackoffKind {
  if (error instanceof XRateLimitedError) return 'rate_limited';
  return error instanceof XUnavailableError && error.status === null ? 'network' : 'http';
}

// X names no ceiling for its 429 back-off; past one rate window (15 minutes) waiting longer only keeps the stream
// down, while every source is searched meanwhile.
const RATE_LIMITED_MAX_MS = 15 * 60_000;

function backoffOf(error: unknown, attempt: number, now: number): { kind: BackoffKind; delayMs: number } {
  const kind = kindOf(error);
  if (error instanceof XRateLimitedError) {
    const delay = Math.min(streamReconnectDelayMs('rate_limited', attempt), RATE_LIMITED_MAX_MS);
    // The shared budget (or X) says when the window opens again; X's own advice may be longer.
    return { kind, delayMs: Math.max(delay, error.resetAt.getTime() - now) };
  }
  return { kind, delayMs: streamReconnectDelayMs(kind, attempt) };
}

/**
 * Keeps X's filtered stream for the whole service: every replica runs one, exactly one holds the PostgreSQL lock
 * and the connection (X allows one per app), and when it dies another takes over within `lockRetryMs`.
 *
 * The holder keeps the rules in line with the sources (rule-sync.ts), connects, and stores what arrives in small
 * batches through the same path as search pages. Every few seconds it records how far the stream's coverage
 * reaches: up to the last byte received once everything before it was stored. A connection made after a gap in
 * that coverage (a disconnection, a crashed holder, a database that refused a batch) records the window as a gap,
 * which any replica's scan tick back-fills by search (backfill.ts), so no post published meanwhile is lost and none
 * is stored twice. Reconnects follow X's advice (PLATFORMS.md d): at once after a connection that held, then
 * back-off by failure kind.
 */
export function startStreamHolder(options: StreamHolderOptions): StreamHolder {
  const holder = new Holder(options);
  const loop = holder.run();
  return {
    holding: () => holder.lockClient !== null,
    connected: () => holder.current?.isConnected ?? false,
    async stop() {
      holder.stopping.abort();
      await loop;
    },
  };
}

/** The holder's state and steps (startStreamHolder runs it). */
class Holder {
  readonly stopping = new AbortController();
  lockClient: pg.PoolClient | null = null;
  current: StreamConnection | null = null;
  private readonly metrics: ScannerMetrics;
  private readonly syncEveryMs: number;
  private readonly store: StreamConnectionStore;

  constructor(private readonly options: StreamHolderOptions) {
    this.metrics = options.metrics ?? createScannerMetrics();
    this.syncEveryMs = options.syncEveryMs ?? 15_000;
    this.store = { pool: options.pool, queues: options.queues, logger: options.logger, metrics: this.metrics, notices: { ...DEFAULT_SOURCE_NOTICE_SETTINGS, ...options.notices } };
  }

  /** Until stopped: take the lock when free, hold the stream while it is this replica's, let go. */
  async run(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      await this.holdWhileLocked();
      if (!this.stopping.signal.aborted) await this.pause(this.options.lockRetryMs ?? 5_000);
    }
  }

  private pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }

  private async syncRules(connected: boolean): Promise<RuleSyncResult> {
    const { pool, x, logger, limits } = this.options;
    const result = await syncStreamRules({ pool, x, logger, limits, connected });
    this.metrics.streamRules.set(result.rules);
    this.metrics.streamSources.set(result.covered);
    return result;
  }

  private async holdWhileLocked(): Promise<void> {
    const { pool, logger } = this.options;
    const sessionPool = this.options.sessionPool ?? pool;
    let lock: pg.PoolClient | null = null;
    try {
      lock = await tryLock(sessionPool);
    } catch (error) {
      logger.warn('stream lock not tried', { error });
    }
    if (!lock) return;
    this.lockClient = lock;
    logger.info('stream held by this replica');
    try {
      await this.hold(lock);
    } catch (error) {
      logger.error('stream holder failed', { error });
    } finally {
      this.lockClient = null;
      // Ending the session drops the lock whatever state the connection is in.
      try {
        await lock.query('SELECT pg_advisory_unlock($1, 1)', [STREAM_LOCK_CLASS]);
        lock.release();
      } catch (error) {
        lock.release(error as Error);
      }
    }
  }

  /** Holds the stream while the lock is this replica's: rules, connection, reconnects with back-off. */
  private async hold(lock: pg.PoolClient): Promise<void> {
    const { logger } = this.options;
    // Failures in a row of one kind: X's back-off for each kind starts over when the kind changes.
    let attempt = 0;
    let lastKind: BackoffKind | null = null;
    const failed = (kind: BackoffKind) => {
      attempt = kind === lastKind ? attempt + 1 : 1;
      lastKind = kind;
      return attempt;
    };
    while (!this.stopping.signal.aborted) {
      // A lock session that died may be someone else's lock by now: this replica stops holding.
      await lock.query('SELECT 1');
      let rules: number;
      try {
        rules = (await this.syncRules(false)).rules;
      } catch (error) {
        const { delayMs } = backoffOf(error, failed(kindOf(error)), Date.now());
        logger.warn('stream rules not synced', { error, retryInMs: delayMs });
        await this.pause(delayMs);
        continue;
      }
      // X refuses a connection without rules (409): nothing to stream until a source appears.
      if (rules === 0) {
        await this.pause(this.syncEveryMs);
        continue;
      }
      try {
        const { connectedFor } = await this.connectOnce(lock);
        this.metrics.streamDisconnects.inc();
        // X: reconnect at once after a connection that held; a connection that keeps dropping backs off.
        if (connectedFor >= (this.options.stableAfterMs ?? 30_000)) {
          attempt = 0;
          lastKind = null;
        } else await this.pause(streamReconnectDelayMs('network', failed('network')));
      } catch (error) {
        const { kind, delayMs } = backoffOf(error, failed(kindOf(error)), Date.now());
        this.metrics.streamConnectFailures.inc({ kind });
        logger.warn('stream connect failed', { error, kind, attempt, retryInMs: delayMs });
        await this.pause(delayMs);
      }
    }
  }

  private async connectOnce(lock: pg.PoolClient): Promise<{ connectedFor: number }> {
    const { options } = this;
    const connection = new StreamConnection({
      pool: options.pool,
      x: options.x,
      logger: options.logger,
      store: this.store,
      lock,
      timing: options.timing ?? DEFAULT_STREAM_TIMING,
      heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
      syncEveryMs: this.syncEveryMs,
      flushEveryMs: options.flushEveryMs ?? 200,
      maxBatch: options.maxBatch ?? 500,
      readTimeoutMs: options.readTimeoutMs,
      syncRules: () => this.syncRules(true),
    });
    const close = () => connection.close();
    this.stopping.signal.addEventListener('abort', close, { once: true });
    // Stopped while the rules were being synced: the listener above came too late to hear it.
    if (this.stopping.signal.aborted) connection.close();
    this.current = connection;
    try {
      return await connection.run();
    } finally {
      this.current = null;
      this.stopping.signal.removeEventListener('abort', close);
    }
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Logger } from '@hashwatch/logger';
import type { Queues } from '@hashwatch/queues';
import { streamReconnectDelayMs, XRateLimitedError, XUnavailableError, type XClient, type XStreamPost } from '@hashwatch/x-api';
import { DEFAULT_SOURCE_NOTICE_SETTINGS, type SourceNoticeSettings } from '../notices/source-notices';
import type { TickSummary } from '../scan-pack';
import { createScannerMetrics, type ScannerMetrics } from '../scanner-metrics';
import { DEFAULT_STREAM_TIMING, HEARTBEAT_MS, recordConnection, recordCoverage, type StreamTiming } from './coverage';
import type { RuleLimits } from './rule-plan';
import { syncStreamRules, type RuleSyncResult } from './rule-sync';
import { storePosts } from './stream-store';

/** First key of the advisory lock held by the one replica that keeps the stream (second key 1). */
export const STREAM_LOCK_CLASS = 0x5ca8;

export interface StreamHolderOptions {
  pool: pg.Pool;
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

function backoffOf(error: unknown, attempt: number, now: number): { kind: BackoffKind; delayMs: number } {
  if (error instanceof XRateLimitedError) {
    const delay = streamReconnectDelayMs('rate_limited', attempt);
    // The shared budget (or X) says when the window opens again; X's own advice may be longer.
    return { kind: 'rate_limited', delayMs: Math.max(delay, error.resetAt.getTime() - now) };
  }
  const network = error instanceof XUnavailableError && error.status === null;
  const kind: BackoffKind = network ? 'network' : 'http';
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
  const { pool, x, logger } = options;
  const metrics = options.metrics ?? createScannerMetrics();
  const notices = { ...DEFAULT_SOURCE_NOTICE_SETTINGS, ...options.notices };
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const syncEveryMs = options.syncEveryMs ?? 15_000;
  const lockRetryMs = options.lockRetryMs ?? 5_000;
  const flushEveryMs = options.flushEveryMs ?? 200;
  const maxBatch = options.maxBatch ?? 500;
  const stableAfterMs = options.stableAfterMs ?? 30_000;
  const timing = options.timing ?? DEFAULT_STREAM_TIMING;
  const stopping = new AbortController();
  let lockClient: pg.PoolClient | null = null;
  let isConnected = false;
  const storeCtx = { pool, queues: options.queues, logger, metrics, notices };
  const summary: TickSummary = { claimed: 0, scanned: 0, failed: 0, requests: 0, stored: 0, merged: 0, overQuota: 0 };

  const pause = (ms: number) => sleep(ms, undefined, { signal: stopping.signal }).catch(() => undefined);

  /** One connection: from the connect call to its end, with its buffer, heartbeats and rule syncs. */
  async function connectOnce(lock: pg.PoolClient): Promise<{ connectedFor: number }> {
    const connection = new AbortController();
    const abort = () => connection.abort();
    stopping.signal.addEventListener('abort', abort, { once: true });
    const buffer: XStreamPost[] = [];
    let flushing: Promise<void> = Promise.resolve();
    let flushTimer: NodeJS.Timeout | null = null;
    let lastActivity = 0;
    // Everything received before this instant (local clock) is stored; moves only while nothing failed.
    let safeUntil = 0;
    let failed = false;
    let connectedAt = 0;
    let ready: Promise<void> | null = null;
    let heartbeat: NodeJS.Timeout | null = null;
    let lastSync = 0;

    const fail = (what: string, error: unknown) => {
      if (failed) return;
      failed = true;
      logger.error(`stream ${what} failed; reconnecting, the gap is back-filled`, { error });
      connection.abort();
    };

    const flush = (): Promise<void> => {
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      flushing = flushing.then(async () => {
        if (failed || buffer.length === 0) return;
        const batch = buffer.splice(0, buffer.length);
        try {
          await storePosts(storeCtx, batch.map((event) => event.post), { postsRead: batch.length, requests: 0 }, summary);
          metrics.streamPostsStored.inc(batch.length);
          safeUntil = buffer.length === 0 ? Math.max(safeUntil, lastActivity) : (buffer[0] as XStreamPost).receivedAt - 1;
        } catch (error) {
          fail('store', error);
        }
      });
      return flushing;
    };

    let beating = false;
    const beat = async () => {
      if (failed || !ready || beating) return;
      beating = true;
      try {
        await ready;
        await lock.query('SELECT 1');
        if (failed) return;
        await recordCoverage(pool, Date.now() - safeUntil);
        if (Date.now() - lastSync >= syncEveryMs) {
          lastSync = Date.now();
          await syncRules(true);
        }
      } catch (error) {
        fail('heartbeat', error);
      } finally {
        beating = false;
      }
    };

    try {
      await x.openStream({
        signal: connection.signal,
        ...(options.readTimeoutMs ? { readTimeoutMs: options.readTimeoutMs } : {}),
        onConnected: (at) => {
          connectedAt = at;
          isConnected = true;
          lastActivity = at;
          safeUntil = at;
          metrics.streamConnected.set(1);
          logger.info('stream connected');
          // The gap since the last coverage is on record before any heartbeat can move the coverage.
          ready = recordConnection(pool, timing)
            .then(async ({ gapId }) => {
              if (gapId) logger.info('stream gap recorded', { gapId });
              // Live from the first moment, not from the first heartbeat: a source the stream serves is not searched meanwhile.
              await recordCoverage(pool, Date.now() - safeUntil);
              lastSync = Date.now();
              await syncRules(true);
            })
            .catch((error: unknown) => fail('connection record', error));
          heartbeat = setInterval(() => void beat(), heartbeatMs);
        },
        onActivity: (at) => {
          lastActivity = at;
          if (buffer.length === 0) void flushing.then(() => {
            if (buffer.length === 0 && !failed) safeUntil = Math.max(safeUntil, at);
          });
        },
        onPost: async (event) => {
          metrics.streamPostsReceived.inc();
          buffer.push(event);
          if (buffer.length >= maxBatch) await flush();
          else flushTimer ??= setTimeout(() => void flush(), flushEveryMs);
        },
      });
    } finally {
      stopping.signal.removeEventListener('abort', abort);
      if (heartbeat) clearInterval(heartbeat);
      isConnected = false;
      metrics.streamConnected.set(0);
      // What arrived is stored and covered before the next connection records its gap.
      await flush();
      if (ready) await ready;
      if (connectedAt > 0 && !failed) await recordCoverage(pool, Date.now() - safeUntil).catch((error: unknown) => logger.warn('stream coverage not recorded', { error }));
    }
    return { connectedFor: connectedAt > 0 ? Date.now() - connectedAt : 0 };
  }

  async function syncRules(connected: boolean): Promise<RuleSyncResult> {
    const result = await syncStreamRules({ pool, x, logger, limits: options.limits, connected });
    metrics.streamRules.set(result.rules);
    metrics.streamSources.set(result.covered);
    return result;
  }

  /** Holds the stream while the lock is this replica's: rules, connection, reconnects with back-off. */
  async function hold(lock: pg.PoolClient): Promise<void> {
    let attempt = 0;
    while (!stopping.signal.aborted) {
      // A lock session that died may be someone else's lock by now: this replica stops holding.
      await lock.query('SELECT 1');
      let rules: number;
      try {
        rules = (await syncRules(false)).rules;
      } catch (error) {
        attempt += 1;
        const { delayMs } = backoffOf(error, attempt, Date.now());
        logger.warn('stream rules not synced', { error, retryInMs: delayMs });
        await pause(delayMs);
        continue;
      }
      // X refuses a connection without rules (409): nothing to stream until a source appears.
      if (rules === 0) {
        await pause(syncEveryMs);
        continue;
      }
      try {
        const { connectedFor } = await connectOnce(lock);
        metrics.streamDisconnects.inc();
        // X: reconnect at once after a connection that held; a connection that keeps dropping backs off.
        if (connectedFor >= stableAfterMs) attempt = 0;
        else {
          attempt += 1;
          await pause(streamReconnectDelayMs('network', attempt));
        }
      } catch (error) {
        attempt += 1;
        const { kind, delayMs } = backoffOf(error, attempt, Date.now());
        metrics.streamConnectFailures.inc({ kind });
        logger.warn('stream connect failed', { error, kind, attempt, retryInMs: delayMs });
        await pause(delayMs);
      }
    }
  }

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      let lock: pg.PoolClient | null = null;
      try {
        lock = await tryLock(pool);
      } catch (error) {
        logger.warn('stream lock not tried', { error });
      }
      if (!lock) {
        await pause(lockRetryMs);
        continue;
      }
      lockClient = lock;
      logger.info('stream held by this replica');
      try {
        await hold(lock);
      } catch (error) {
        logger.error('stream holder failed', { error });
      } finally {
        lockClient = null;
        // Ending the session drops the lock whatever state the connection is in.
        try {
          await lock.query('SELECT pg_advisory_unlock($1, 1)', [STREAM_LOCK_CLASS]);
          lock.release();
        } catch (error) {
          lock.release(error as Error);
        }
      }
      if (!stopping.signal.aborted) await pause(lockRetryMs);
    }
  })();

  return {
    holding: () => lockClient !== null,
    connected: () => isConnected,
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}

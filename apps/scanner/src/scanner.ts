import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Logger } from '@hashwatch/logger';
import type { Queues } from '@hashwatch/queues';
import { XApiError, XRateLimitedError, type XClient } from '@hashwatch/x-api';
import { packSources } from './packing/pack-sources';
import { DEFAULT_SOURCE_NOTICE_SETTINGS, type SourceNoticeSettings } from './notices/source-notices';
import { scanPack, type ScanContext, type StoredBatch, type TickSummary } from './scan-pack';
import { createScannerMetrics, type ScannerMetrics } from './scanner-metrics';
import { claimDueSources, type SourceClaim } from './sources/claim-sources';
import { resolveUsers } from './sources/resolve-users';
import { refreshFairShares, type SearchBudget } from './sources/fair-shares';
import { syncSources } from './sources/sync-sources';
import { describeFailure, recordFailure, type ScanFailure } from './storing/record-failure';
import { backfillGaps } from './stream/backfill';

export type { StoredBatch, TickSummary } from './scan-pack';

export interface ScannerOptions {
  pool: pg.Pool;
  x: XClient;
  /** Where the outbox is relayed right after each commit (the relay scheduler is the backstop). */
  queues: Queues;
  logger: Logger;
  /** X_QUERY_MAX_LENGTH: 512 on self-serve plans, 4096 on Enterprise. */
  maxQueryLength: number;
  /** Sources claimed at once; a tick claims again until nothing is due. Default 1000. */
  claimBatchSize?: number;
  /** Packed queries fetched and stored in parallel within a claim. Default 4. */
  packConcurrency?: number;
  /** Delays before retrying a 5xx/timeout within a cycle. Default 250 ms, then 1 s. */
  retryDelaysMs?: readonly number[];
  metrics?: ScannerMetrics;
  /**
   * An account with fewer alert units left than this gets its new items in the query's last transaction
   * (oldest posts first over the whole query) instead of page by page. Default 1,000.
   */
  streamQuotaMargin?: number;
  /** Most pages one transaction stores when several have arrived meanwhile. Default 3. */
  maxPagesPerBatch?: number;
  /** Source notices: SOURCE_FAILING_CYCLES and the silence detector's parameters. Default: their defaults. */
  sourceNotices?: Partial<SourceNoticeSettings>;
  /**
   * Recent searches the scans plan to spend (SCANNER_SEARCH_BUDGET): accounts asking for more than their plan-weighted
   * share scan at a multiple of their interval (sources/fair-shares.ts). Default: off (the app sets it from the environment).
   */
  searchBudget?: SearchBudget | null;
  /** How often a replica plans the shares, in ms. Default 10 s; 0: every tick. */
  fairShareEveryMs?: number;
  /**
   * Direct PostgreSQL sessions (DATABASE_DIRECT_URL) for the session advisory locks of claims and gap back-fills,
   * when `pool` goes through a transaction pooler. Default `pool`.
   */
  sessionPool?: pg.Pool;
  /** Called after each batch commits and is relayed; benchmarks time the path from answer to alert with it. */
  onBatchStored?: (event: StoredBatch) => void;
  now?: () => number;
}

export interface Scanner {
  /**
   * One scan tick: sync the sources, then claim and scan whatever is due until nothing is. A scheduler's tick
   * passes its slot (`at`): sources are claimed as of then and pushed one interval ahead of it. Default: now.
   */
  runTick(tick?: { at?: Date }): Promise<TickSummary>;
  readonly metrics: ScannerMetrics;
}

// Shares follow tracks created or deleted within this long.
const FAIR_SHARE_EVERY_MS = 10_000;

// A tick that keeps finding full batches of due sources still ends: the next tick picks up the rest.
const MAX_CLAIMS_PER_TICK = 20;

async function mapLimit<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  });
  await Promise.all(lanes);
}

/**
 * The scanning loop of one replica. Everything it does is safe with any number of replicas: sources are
 * claimed in PostgreSQL, and each batch's items, quota units and alert jobs commit in one transaction (the
 * last batch of a query with its cursors), so a retry or a crash never stores, counts or alerts twice.
 */
export function createScanner(options: ScannerOptions): Scanner {
  const { pool } = options;
  const now = options.now ?? Date.now;
  const ctx: ScanContext = {
    pool,
    sessionPool: options.sessionPool ?? pool,
    x: options.x,
    queues: options.queues,
    logger: options.logger,
    metrics: options.metrics ?? createScannerMetrics(),
    now,
    fetchOptions: { retryDelaysMs: options.retryDelaysMs ?? [250, 1000], sleep: (ms: number) => sleep(ms), now },
    streamQuotaMargin: options.streamQuotaMargin ?? 1000,
    maxPagesPerBatch: options.maxPagesPerBatch ?? 3,
    notices: { ...DEFAULT_SOURCE_NOTICE_SETTINGS, ...options.sourceNotices },
    onBatchStored: options.onBatchStored,
  };
  const batchSize = options.claimBatchSize ?? 1000;
  const claims = { concurrency: options.packConcurrency ?? 4, maxQueryLength: options.maxQueryLength };
  const searchBudget = options.searchBudget ?? null;
  const fairShareEveryMs = options.fairShareEveryMs ?? FAIR_SHARE_EVERY_MS;
  let sharesPlannedAt = -Infinity;

  return {
    metrics: ctx.metrics,
    async runTick(tick = {}) {
      const summary: TickSummary = { claimed: 0, scanned: 0, failed: 0, requests: 0, stored: 0, merged: 0, overQuota: 0 };
      ctx.metrics.ticks.inc();
      if (searchBudget && now() - sharesPlannedAt >= fairShareEveryMs) {
        sharesPlannedAt = now();
        // Planning is an optimisation of who waits: a failure leaves the last shares in place and scanning goes on.
        await refreshFairShares(pool, searchBudget, claims.maxQueryLength, ctx.logger).catch((error: unknown) => ctx.logger.warn('search budget shares not planned', { error }));
      }
      await syncSources(pool);
      for (let round = 0; round < MAX_CLAIMS_PER_TICK; round += 1) {
        const claim = await claimDueSources(ctx.sessionPool, batchSize, tick.at);
        if (!claim) break;
        summary.claimed += claim.sources.length;
        try {
          await scanClaim(ctx, claims, claim, summary);
        } finally {
          await claim.release();
        }
        // A partial batch took everything that was due; claiming again would only pick up what this tick
        // just failed and pushed a moment ahead.
        if (claim.sources.length < batchSize) break;
      }
      // Windows the filtered stream missed (stream/backfill.ts): any replica's tick searches them once X allows.
      try {
        const backfill = await backfillGaps(ctx, claims.maxQueryLength, summary);
        ctx.metrics.gapsFilled.inc(backfill.filled);
      } catch (error) {
        ctx.logger.warn('stream gap back-fill not run', { error });
      }
      return summary;
    },
  };
}

/** Scans one claim: resolves its accounts' user ids, packs its sources into queries and runs them, a few at once. */
async function scanClaim(ctx: ScanContext, claims: { concurrency: number; maxQueryLength: number }, claim: SourceClaim, summary: TickSummary): Promise<void> {
  const { pool, metrics } = ctx;
  const log = ctx.logger.child({ claim: claim.id });
  const skip = await resolveUsers(pool, ctx.x, claim.sources, claim.id, log, ctx.now, ctx.notices);
  const { packs, unpackable } = packSources(claim.sources.filter((source) => !skip.has(source.key)), claims.maxQueryLength);
  if (unpackable.length > 0) {
    await recordFailure(pool, unpackable, { reason: 'too long for the X query limit', retry: { kind: 'interval' }, counts: true }, claim.id, ctx.notices);
  }
  let rateLimited: ScanFailure | null = null;

  await mapLimit(packs, claims.concurrency, async (pack) => {
    if (rateLimited) {
      // The budget is shared: every further search would be refused before it left.
      await recordFailure(pool, pack.sources, rateLimited, claim.id, ctx.notices);
      summary.failed += pack.sources.length;
      return;
    }
    try {
      await scanPack(ctx, pack, claim, summary);
      summary.scanned += pack.sources.length;
      metrics.sourcesScanned.inc(pack.sources.length);
    } catch (error) {
      const failure = describeFailure(error);
      if (error instanceof XRateLimitedError) rateLimited = failure;
      summary.failed += pack.sources.length;
      metrics.packFailures.inc();
      const fields = { sources: pack.sources.length, reason: failure.reason, error };
      // Upstream trouble is expected and shown on the tracks; anything else is ours.
      if (error instanceof XApiError) log.warn('pack failed', fields);
      else log.error('pack failed', fields);
      await recordFailure(pool, pack.sources, failure, claim.id, ctx.notices).catch((recordError: unknown) => log.error('failure not recorded', { error: recordError }));
    }
  });
}

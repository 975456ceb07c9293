import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { isPgError, PgErrorCode, transaction } from '@hashwatch/db';
import type { Logger } from '@hashwatch/logger';
import { relayWritten, type WrittenOutbox } from '@hashwatch/outbox';
import type { Queues } from '@hashwatch/queues';
import { XApiError, XRateLimitedError, type XClient } from '@hashwatch/x-api';
import type { XPost } from '@hashwatch/x-api';
import { fetchPage, packSinceId, type FetchedPage } from './fetching/fetch-pack';
import { packSources, type Pack } from './packing/pack-sources';
import { ScannerMetrics } from './scanner-metrics';
import { claimDueSources, type ClaimedSource, type SourceClaim } from './sources/claim-sources';
import { resolveUsers } from './sources/resolve-users';
import { syncSources } from './sources/sync-sources';
import { describeFailure, recordFailure, type ScanFailure } from './storing/record-failure';
import { loadSubscriptions, storePack, type StorePackResult } from './storing/store-pack';

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
  /** Called after each batch commits and is relayed; benchmarks time the path from answer to alert with it. */
  onBatchStored?: (event: StoredBatch) => void;
  now?: () => number;
}

/** One committed batch of a pack: a page, or the last page with what earlier pages deferred. */
export interface StoredBatch {
  stored: StorePackResult;
  /** When the answer carrying each post of the batch arrived. */
  receivedAt: ReadonlyMap<string, number>;
  /** Whether this batch completed the query (cursors advanced). */
  complete: boolean;
  /** When its transaction started, committed, and its alert jobs were relayed (`now()`). */
  startedAt: number;
  committedAt: number;
  relayedAt: number;
}

export interface TickSummary {
  claimed: number;
  scanned: number;
  failed: number;
  requests: number;
  stored: number;
  merged: number;
  overQuota: number;
}

export interface Scanner {
  /**
   * One scan tick: sync the sources, then claim and scan whatever is due until nothing is. A scheduler's tick
   * passes its slot (`at`): sources are claimed as of then and pushed one interval ahead of it. Default: now.
   */
  runTick(tick?: { at?: Date }): Promise<TickSummary>;
  readonly metrics: ScannerMetrics;
}

// A deadlock with another feed writer (the engagement poller, a usage row created out of order) aborts
// one transaction; the batch is redone, which is safe since nothing of it committed.
const STORE_ATTEMPTS = 3;
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
  const { pool, x, queues, logger } = options;
  const metrics = options.metrics ?? new ScannerMetrics();
  const now = options.now ?? Date.now;
  const batchSize = options.claimBatchSize ?? 1000;
  const concurrency = options.packConcurrency ?? 4;
  const fetchOptions = { retryDelaysMs: options.retryDelaysMs ?? [250, 1000], sleep: (ms: number) => sleep(ms), now };
  const streamQuotaMargin = options.streamQuotaMargin ?? 1000;
  const maxPagesPerBatch = options.maxPagesPerBatch ?? 3;

  async function store(input: Parameters<typeof storePack>[1]): Promise<StorePackResult> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await transaction(pool, (client) => storePack(client, input));
      } catch (error) {
        const retryable = isPgError(error, PgErrorCode.deadlockDetected) || isPgError(error, PgErrorCode.serializationFailure);
        if (!retryable || attempt >= STORE_ATTEMPTS) throw error;
        logger.warn('pack store retried', { attempt, error });
      }
    }
  }

  async function relay(written: WrittenOutbox): Promise<void> {
    try {
      const onInvalid = (jobId: string, error: Error) => logger.error('outbox row dropped', { jobId, error });
      // Straight from memory: the jobs this batch just committed. Rows a crashed cycle left are the relay
      // scheduler's (outbox-relay, every few seconds).
      await relayWritten(pool, queues, written, { onInvalid });
    } catch (error) {
      // The rows stay in the outbox; the relay scheduler moves them once Redis answers.
      logger.warn('outbox relay failed', { error });
    }
  }

  async function scanClaim(claim: SourceClaim, summary: TickSummary): Promise<void> {
    const log = logger.child({ claim: claim.id });
    const skip = await resolveUsers(pool, x, claim.sources, claim.id, log, now);
    const { packs, unpackable } = packSources(claim.sources.filter((source) => !skip.has(source.key)), options.maxQueryLength);
    if (unpackable.length > 0) {
      await recordFailure(pool, unpackable, { reason: 'too long for the X query limit', retry: { kind: 'interval' }, counts: true }, claim.id);
    }
    let rateLimited: ScanFailure | null = null;

    await mapLimit(packs, concurrency, async (pack) => {
      if (rateLimited) {
        // The budget is shared: every further search would be refused before it left.
        await recordFailure(pool, pack.sources, rateLimited, claim.id);
        summary.failed += pack.sources.length;
        return;
      }
      try {
        await scanPack(pack, claim, summary);
        summary.scanned += pack.sources.length;
        metrics.add('scanner_sources_scanned_total', pack.sources.length);
      } catch (error) {
        const failure = describeFailure(error);
        if (error instanceof XRateLimitedError) rateLimited = failure;
        summary.failed += pack.sources.length;
        metrics.add('scanner_pack_failures_total');
        const fields = { sources: pack.sources.length, reason: failure.reason, error };
        // Upstream trouble is expected and shown on the tracks; anything else is ours.
        if (error instanceof XApiError) log.warn('pack failed', fields);
        else log.error('pack failed', fields);
        await recordFailure(pool, pack.sources, failure, claim.id).catch((recordError: unknown) => log.error('failure not recorded', { error: recordError }));
      }
    });
  }

  /**
   * Runs one packed query, storing pages as they arrive: a fetcher follows next_token as fast as X answers
   * while a storer commits whatever pages have arrived since its last commit, in one transaction (so one
   * page when X is slower than the database, several when it is faster). The transaction holding the last
   * page also advances the cursors, with whatever earlier batches deferred for accounts close to their quota.
   */
  async function scanPack(pack: Pack<ClaimedSource>, claim: SourceClaim, summary: TickSummary): Promise<void> {
    const sinceId = packSinceId(pack.sources, now());
    const deferred = new Map<string, XPost>();
    const receivedAt = new Map<string, number>();
    const lastPostAt = new Map<string, Date>();
    // Each batch's jobs go to BullMQ as soon as it commits, without waiting for an earlier batch's relay.
    const relays: Promise<unknown>[] = [];
    // Once per query, while page 1 is on its way: a track deleted during the query may still get its posts.
    const loading = loadSubscriptions(pool, pack.sources);
    loading.catch(() => undefined);

    const arrived: FetchedPage[] = [];
    let fetchError: unknown = null;
    let fetching = true;
    let wake: (() => void) | null = null;
    const signal = () => {
      wake?.();
      wake = null;
    };
    const fetcher = (async () => {
      try {
        let token: string | null = null;
        do {
          const page: FetchedPage = await fetchPage(x, pack.query, sinceId, token, fetchOptions);
          summary.requests += page.requests;
          metrics.add('scanner_upstream_requests_total', page.requests);
          metrics.add('scanner_posts_read_total', page.postsRead);
          arrived.push(page);
          signal();
          token = page.nextToken;
        } while (token !== null && fetchError === null);
      } catch (error) {
        fetchError = error;
      } finally {
        fetching = false;
        signal();
      }
    })();

    let newestId: string | null | undefined;
    try {
      for (;;) {
        if (arrived.length === 0 && fetching) await new Promise<void>((resolve) => (wake = resolve));
        // A failed page ends the query: pages stored so far stay, the cursors do not move.
        if (fetchError !== null) throw fetchError;
        const pages = arrived.splice(0, maxPagesPerBatch);
        if (pages.length === 0) return;
        if (newestId === undefined) newestId = pages[0]?.newestId ?? null;
        const complete = pages.at(-1)?.nextToken === null;
        const fresh = pages.flatMap((page) => page.posts);
        for (const page of pages) for (const post of page.posts) receivedAt.set(post.id, page.receivedAt);
        const startedAt = now();
        const stored = await store({
          sources: pack.sources,
          claimId: claim.id,
          posts: complete ? [...deferred.values(), ...fresh] : fresh,
          postsRead: pages.reduce((sum, page) => sum + page.postsRead, 0),
          subscriptions: await loading,
          ...(complete ? { complete: { newestId, lastPostAt } } : { deferBelowQuota: streamQuotaMargin }),
        });
        const committedAt = now();
        // The relay of this batch overlaps the store of the next; the pack ends once every relay is done.
        const relayed = stored.inserted.length > 0 ? relay(stored.outbox).then(() => now()) : Promise.resolve(committedAt);
        relays.push(relayed);
        for (const [id, at] of stored.lastPostAt) {
          const current = lastPostAt.get(id);
          if (!current || current.getTime() < at.getTime()) lastPostAt.set(id, at);
        }
        const byId = new Map(fresh.map((post) => [post.id, post]));
        for (const id of stored.deferredPostIds) {
          const post = byId.get(id);
          if (post) deferred.set(id, post);
        }
        summary.stored += stored.inserted.length;
        summary.merged += stored.merged;
        summary.overQuota += stored.droppedForQuota;
        metrics.add('scanner_items_stored_total', stored.inserted.length);
        metrics.add('scanner_items_merged_total', stored.merged);
        metrics.add('scanner_items_over_quota_total', stored.droppedForQuota);
        const onBatchStored = options.onBatchStored;
        if (onBatchStored) void relayed.then((relayedAt) => onBatchStored({ stored, receivedAt, complete, startedAt, committedAt, relayedAt }));
        if (complete) return;
      }
    } finally {
      // Stops a fetcher still following pages after a failure, and leaves nothing running behind the pack.
      fetchError ??= new Error('pack abandoned');
      await fetcher;
      await Promise.all(relays);
    }
  }

  return {
    metrics,
    async runTick(tick = {}) {
      const summary: TickSummary = { claimed: 0, scanned: 0, failed: 0, requests: 0, stored: 0, merged: 0, overQuota: 0 };
      metrics.add('scanner_ticks_total');
      await syncSources(pool);
      for (let round = 0; round < MAX_CLAIMS_PER_TICK; round += 1) {
        const claim = await claimDueSources(pool, batchSize, tick.at);
        if (!claim) break;
        summary.claimed += claim.sources.length;
        try {
          await scanClaim(claim, summary);
        } finally {
          await claim.release();
        }
        // A partial batch took everything that was due; claiming again would only pick up what this tick
        // just failed and pushed a moment ahead.
        if (claim.sources.length < batchSize) break;
      }
      return summary;
    },
  };
}

import type pg from 'pg';
import { isPgError, PgErrorCode, transaction } from '@hashwatch/db';
import type { Logger } from '@hashwatch/logger';
import { relayWritten, type WrittenOutbox } from '@hashwatch/outbox';
import type { Queues } from '@hashwatch/queues';
import type { XClient, XPost } from '@hashwatch/x-api';
import { fetchPage, packSinceId, type FetchedPage, type FetchOptions } from './fetching/fetch-pack';
import type { Pack } from './packing/pack-sources';
import type { ScannerMetrics } from './scanner-metrics';
import type { SourceNoticeSettings } from './notices/source-notices';
import type { ClaimedSource, SourceClaim } from './sources/claim-sources';
import { loadSubscriptions, storePack, type StorePackResult } from './storing/store-pack';

/** What scanning a pack needs: the scanner's clients and its resolved options. */
export interface ScanContext {
  pool: pg.Pool;
  /** Direct PostgreSQL sessions (DATABASE_DIRECT_URL) for session advisory locks: claims, gap back-fills. */
  sessionPool: pg.Pool;
  x: XClient;
  queues: Queues;
  logger: Logger;
  metrics: ScannerMetrics;
  now: () => number;
  fetchOptions: FetchOptions;
  streamQuotaMargin: number;
  maxPagesPerBatch: number;
  /** Source notices: failing cycles, silence detector. */
  notices: SourceNoticeSettings;
  onBatchStored?: ((event: StoredBatch) => void) | undefined;
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

/** What one tick did, summed over its claims and packs. */
export interface TickSummary {
  claimed: number;
  scanned: number;
  failed: number;
  requests: number;
  stored: number;
  merged: number;
  overQuota: number;
}

// A deadlock with another feed writer (the engagement poller, a usage row created out of order) aborts
// one transaction; the batch is redone, which is safe since nothing of it committed.
const STORE_ATTEMPTS = 3;

/** Stores one batch in its own transaction, redone after a deadlock or serialization failure (nothing of it committed). */
export async function store(ctx: Pick<ScanContext, 'pool' | 'logger'>, input: Parameters<typeof storePack>[1]): Promise<StorePackResult> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transaction(ctx.pool, (client) => storePack(client, input));
    } catch (error) {
      const retryable = isPgError(error, PgErrorCode.deadlockDetected) || isPgError(error, PgErrorCode.serializationFailure);
      if (!retryable || attempt >= STORE_ATTEMPTS) throw error;
      ctx.logger.warn('pack store retried', { attempt, error });
    }
  }
}

/** Hands a committed batch's alert jobs to BullMQ; on failure the outbox relay scheduler moves them later. */
export async function relay(ctx: Pick<ScanContext, 'pool' | 'queues' | 'logger'>, written: WrittenOutbox): Promise<void> {
  try {
    const onInvalid = (jobId: string, error: Error) => ctx.logger.error('outbox row dropped', { jobId, error });
    // Straight from memory: the jobs this batch just committed. Rows a crashed cycle left are the relay
    // relay's (the notifier's outbox relay, every second).
    await relayWritten(ctx.pool, ctx.queues, written, { onInvalid });
  } catch (error) {
    // The rows stay in the outbox; the relay scheduler moves them once Redis answers.
    ctx.logger.warn('outbox relay failed', { error });
  }
}

/** Pages of one query as X answers them, fetched ahead of the store that takes them. */
interface PageFeed {
  /** Up to `max` pages that have arrived, waiting for one when none has; [] once the query is done. */
  take(max: number): Promise<FetchedPage[]>;
  /** Stops following next_token and waits for the fetch in flight. */
  stop(): Promise<void>;
}

/** Follows next_token as fast as X answers; a failed page ends the query (take() throws its error). */
function followPages(ctx: ScanContext, pack: Pack<ClaimedSource>, sinceId: string, summary: TickSummary): PageFeed {
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
        const page: FetchedPage = await fetchPage(ctx.x, pack.query, sinceId, token, ctx.fetchOptions);
        summary.requests += page.requests;
        ctx.metrics.postsRead.inc(page.postsRead);
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
  return {
    async take(max) {
      if (arrived.length === 0 && fetching) await new Promise<void>((resolve) => (wake = resolve));
      if (fetchError !== null) throw fetchError;
      return arrived.splice(0, max);
    },
    async stop() {
      fetchError ??= new Error('pack abandoned');
      await fetcher;
    },
  };
}

/** What a pack carries from one batch to the next. */
interface PackState {
  deferred: Map<string, XPost>;
  receivedAt: Map<string, number>;
  lastPostAt: Map<string, Date>;
  /** Per source key, when the new posts of earlier batches were published (ms). */
  sourcePosts: Map<string, number[]>;
  /** The newest post id of the query (its first page's), which the last batch stores as the cursor. */
  newestId: string | null | undefined;
}

export function countStored(ctx: Pick<ScanContext, 'metrics'>, stored: StorePackResult, summary: TickSummary): void {
  summary.stored += stored.inserted.length;
  summary.merged += stored.merged;
  summary.overQuota += stored.droppedForQuota;
  for (const item of stored.inserted) ctx.metrics.feed.itemsStored.inc({ type: item.type });
  ctx.metrics.itemsMerged.inc(stored.merged);
  ctx.metrics.itemsOverQuota.inc(stored.droppedForQuota);
}

/** Stores one batch of pages in one transaction and starts its relay; answers the relay and whether the query is done. */
async function storeBatch(ctx: ScanContext, run: { pack: Pack<ClaimedSource>; claim: SourceClaim; subscriptions: ReturnType<typeof loadSubscriptions> }, pages: FetchedPage[], state: PackState, summary: TickSummary): Promise<{ relayed: Promise<number>; complete: boolean }> {
  if (state.newestId === undefined) state.newestId = pages[0]?.newestId ?? null;
  const complete = pages.at(-1)?.nextToken === null;
  const fresh = pages.flatMap((page) => page.posts);
  for (const page of pages) for (const post of page.posts) state.receivedAt.set(post.id, page.receivedAt);
  const startedAt = ctx.now();
  const stored = await store(ctx, {
    sources: run.pack.sources,
    claimId: run.claim.id,
    posts: complete ? [...state.deferred.values(), ...fresh] : fresh,
    postsRead: pages.reduce((sum, page) => sum + page.postsRead, 0),
    // Requests X answered: one per page. Calls that failed (retried or not) were not served, nor billed.
    requests: pages.length,
    subscriptions: await run.subscriptions,
    notices: ctx.notices,
    ...(complete
      ? { complete: { newestId: state.newestId, lastPostAt: state.lastPostAt, sourcePosts: state.sourcePosts, now: new Date(ctx.now()) } }
      : { deferBelowQuota: ctx.streamQuotaMargin }),
  });
  const committedAt = ctx.now();
  // The relay of this batch overlaps the store of the next; the pack ends once every relay is done.
  const relayed = stored.inserted.length > 0 ? relay(ctx, stored.outbox).then(() => ctx.now()) : Promise.resolve(committedAt);
  for (const [id, at] of stored.lastPostAt) {
    const current = state.lastPostAt.get(id);
    if (!current || current.getTime() < at.getTime()) state.lastPostAt.set(id, at);
  }
  for (const [key, times] of stored.sourcePosts) state.sourcePosts.set(key, [...(state.sourcePosts.get(key) ?? []), ...times]);
  const byId = new Map(fresh.map((post) => [post.id, post]));
  for (const id of stored.deferredPostIds) {
    const post = byId.get(id);
    if (post) state.deferred.set(id, post);
  }
  countStored(ctx, stored, summary);
  const { onBatchStored } = ctx;
  if (onBatchStored) void relayed.then((relayedAt) => onBatchStored({ stored, receivedAt: state.receivedAt, complete, startedAt, committedAt, relayedAt }));
  return { relayed, complete };
}

/**
 * Runs one packed query, storing pages as they arrive: a fetcher follows next_token as fast as X answers
 * while a storer commits whatever pages have arrived since its last commit, in one transaction (so one
 * page when X is slower than the database, several when it is faster). The transaction holding the last
 * page also advances the cursors, with whatever earlier batches deferred for accounts close to their quota.
 */
export async function scanPack(ctx: ScanContext, pack: Pack<ClaimedSource>, claim: SourceClaim, summary: TickSummary): Promise<void> {
  const state: PackState = { deferred: new Map(), receivedAt: new Map(), lastPostAt: new Map(), sourcePosts: new Map(), newestId: undefined };
  // Each batch's jobs go to BullMQ as soon as it commits, without waiting for an earlier batch's relay.
  const relays: Promise<unknown>[] = [];
  // Once per query, while page 1 is on its way: a track deleted during the query may still get its posts.
  const subscriptions = loadSubscriptions(ctx.pool, pack.sources);
  subscriptions.catch(() => undefined);
  const pages = followPages(ctx, pack, packSinceId(pack.sources, ctx.now()), summary);
  try {
    for (;;) {
      // A failed page ends the query: pages stored so far stay, the cursors do not move.
      const batch = await pages.take(ctx.maxPagesPerBatch);
      if (batch.length === 0) return;
      const { relayed, complete } = await storeBatch(ctx, { pack, claim, subscriptions }, batch, state, summary);
      relays.push(relayed);
      if (complete) return;
    }
  } finally {
    // Stops a fetcher still following pages after a failure, and leaves nothing running behind the pack.
    await pages.stop();
    await Promise.all(relays);
  }
}

import type pg from 'pg';
import type { RedisClient } from '@hashwatch/queues';
import type { Logger } from '@hashwatch/logger';
import { planShareWeightSql } from '@hashwatch/plans';
import type { XClient } from '@hashwatch/x-api';
import { claimTurns, refreshCountsBatch, type BatchOutcome } from './counts/refresh-counts';
import { discoverTrackedPosts, type DiscoveryResult } from './discovery/discover-tracked-posts';
import { markChangedAccounts } from './discovery/mark-changed-accounts';
import { createPollerMetrics, type PollerMetrics } from './poller-metrics';
import { ReplyCursors } from './samples/reply-cursors';
import { DEFAULT_ALLOWANCES, SampleBudget, type SampleAllowance } from './samples/sample-budget';
import { KIND_COLUMNS, SAMPLE_KINDS, type SampleKind } from './samples/sample-kinds';
import { samplePost, type SampleOutcome } from './samples/sample-post';

export interface PollerOptions {
  /** X serves liking users only to a user-context token (X_USER_TOKEN). Without one, likers are never sampled. */
  likesSampled: boolean;
  /** Lookup batches of 100 in flight at once on this replica. */
  lookupConcurrency: number;
  /** Sample calls in flight at once on this replica. */
  sampleConcurrency: number;
  /** Most samples of one category one cycle considers (the budget usually grants far fewer). */
  maxSamplesPerCycle: number;
  allowances: Record<SampleKind, SampleAllowance>;
  /** Lookup failures in a row (timeouts, 5xx) after which a cycle stops claiming: X is likely down. */
  maxLookupFailures: number;
  /** How long a finished post's state is kept, so a late detection by another account resumes it. */
  finishedStateRetentionHours: number;
  /**
   * A post whose counts do not change is only rescheduled; whatever else could change its items (a new
   * tracking account, a PATCH, a plan or subscription change) asks for a full refresh explicitly. This is
   * the safety net: a full refresh at least this often anyway.
   */
  fullRefreshSeconds: number;
}

export const DEFAULT_POLLER_OPTIONS: PollerOptions = {
  likesSampled: false,
  lookupConcurrency: 4,
  sampleConcurrency: 4,
  maxSamplesPerCycle: 200,
  allowances: DEFAULT_ALLOWANCES,
  maxLookupFailures: 3,
  finishedStateRetentionHours: 48,
  fullRefreshSeconds: 1800,
};

export interface EngagementPollerDeps {
  pool: pg.Pool;
  x: XClient;
  /** Holds the shared sample budget, the discovery watermark and the reply cursors, under `keyPrefix`. */
  redis: RedisClient;
  keyPrefix: string;
  logger: Logger;
  /** The clock of everything the poller decides (windows, cadences, budgets). Tests move it. */
  now: () => Date;
  /** One capped relay run (relayOutbox); the poller repeats it up to 20 times after every cycle. */
  relay?: () => Promise<number>;
  options?: Partial<PollerOptions>;
  /** Where the poller's series go; default a registry of its own. The X client's observer belongs on the same one. */
  metrics?: PollerMetrics;
}

export interface CountsReport {
  batches: number;
  refreshed: number;
  changed: number;
  /** Posts fully refreshed (the others were only rescheduled). */
  full: number;
  gone: number;
  /** Of `gone`, posts X deleted: their content was erased from the feed. */
  deleted: number;
  itemsWritten: number;
  failedPosts: number;
  heldBack: boolean;
}

export interface KindReport {
  candidates: number;
  granted: number;
  calls: number;
  sampled: number;
  newEngagers: number;
  stored: number;
  droppedForQuota: number;
  heldBack: boolean;
}

export interface CycleReport {
  discovered: DiscoveryResult;
  /** Accounts whose sources, cadence or subscription changed since the last cycle. */
  changedAccounts: number;
  counts: CountsReport;
  samples: Partial<Record<SampleKind, KindReport>>;
  relayed: number;
  finishedStatesRemoved: number;
  durationMs: number;
  /** Milliseconds spent in each phase. */
  phases: { discoveryMs: number; countsMs: number; samplesMs: number; relayMs: number };
}

export interface EngagementPoller {
  /**
   * One refresh cycle: discover, refresh counts of every due post, sample what rose most, relay alerts. A
   * scheduler's tick passes how late it runs (`lateByMs`): the cycle's clock is set back by that much, so posts
   * are claimed and rescheduled on the tick's grid.
   */
  runCycle(options?: { lateByMs?: number }): Promise<CycleReport>;
  /** Samples one post now, every category that rose (within the budget): the `sample-engagement` job. */
  sampleNow(xPostId: string): Promise<Partial<Record<SampleKind, SampleOutcome['kind']>>>;
  readonly metrics: PollerMetrics;
}

// The posts whose count rose since their last sample, taken in turns between the accounts tracking them: each
// account's posts ranked by how much they rose, and an account's n-th post comes at turn n / its plan's weight
// (a post several accounts track takes its best turn). So one account with a hundred viral posts cannot spend a
// category's whole budget while another account's posts rise too; alone, an account gets all of it.
const candidatesSql = (kind: SampleKind) => {
  const { count, sampled } = KIND_COLUMNS[kind];
  return `
WITH rising AS (
  SELECT x_post_id, ${count} - ${sampled} AS rise FROM engagement_states
   WHERE ${count} > ${sampled} AND poll_until > $1
), turns AS (
  SELECT r.x_post_id, r.rise,
         row_number() OVER (PARTITION BY f.user_id ORDER BY r.rise DESC, r.x_post_id)::float8 / ${planShareWeightSql('u.plan_id')} AS turn
    FROM rising r
    JOIN feed_items f ON f.x_post_id = r.x_post_id AND f.type <> 'engagement' AND f.engagement_tracked
    JOIN users u ON u.id = f.user_id
)
SELECT x_post_id FROM turns
 GROUP BY x_post_id
 ORDER BY min(turn), max(rise) DESC, x_post_id
 LIMIT $2`;
};

const REMOVE_FINISHED = `
DELETE FROM engagement_states
 WHERE x_post_id IN (SELECT x_post_id FROM engagement_states WHERE poll_until < $1 LIMIT 5000 FOR UPDATE SKIP LOCKED)`;

const ENDPOINT_OF: Record<SampleKind, string> = { like: 'liking_users', retweet: 'retweeted_by', reply: 'search_recent' };

/** Runs `worker` `concurrency` times at once; rethrows the first error once all have stopped. */
async function inParallel(concurrency: number, worker: () => Promise<void>): Promise<void> {
  const results = await Promise.allSettled(Array.from({ length: Math.max(1, concurrency) }, worker));
  const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) throw failure.reason;
}

/** The poller's clients and resolved options, shared by its steps. */
interface PollerContext {
  pool: EngagementPollerDeps['pool'];
  x: EngagementPollerDeps['x'];
  redis: EngagementPollerDeps['redis'];
  keyPrefix: string;
  logger: EngagementPollerDeps['logger'];
  now: () => Date;
  relay: EngagementPollerDeps['relay'];
  options: PollerOptions;
  budget: SampleBudget;
  replyCursors: ReplyCursors;
  metrics: PollerMetrics;
  kinds: SampleKind[];
}

/**
 * The engagement poller. Safe with any number of replicas: posts are claimed with row locks (SKIP LOCKED),
 * the sample budget and the discovery watermark are shared in Redis, and every write that could repeat is
 * idempotent (upserts, dedupe keys, deterministic job ids).
 */
export function createEngagementPoller(deps: EngagementPollerDeps): EngagementPoller {
  const options: PollerOptions = { ...DEFAULT_POLLER_OPTIONS, ...deps.options };
  const ctx: PollerContext = {
    pool: deps.pool,
    x: deps.x,
    redis: deps.redis,
    keyPrefix: deps.keyPrefix,
    logger: deps.logger,
    now: deps.now,
    relay: deps.relay,
    options,
    budget: new SampleBudget(deps.redis, deps.keyPrefix, options.allowances),
    replyCursors: new ReplyCursors(deps.redis, deps.keyPrefix),
    metrics: deps.metrics ?? createPollerMetrics(),
    kinds: SAMPLE_KINDS.filter((kind) => kind !== 'like' || options.likesSampled),
  };
  return {
    metrics: ctx.metrics,
    runCycle: (cycle = {}) => runCycle(ctx, cycle),
    sampleNow: (xPostId) => sampleNow(ctx, xPostId),
  };
}

async function refreshCounts(ctx: PollerContext, now: Date): Promise<CountsReport> {
  const report: CountsReport = { batches: 0, refreshed: 0, changed: 0, full: 0, gone: 0, deleted: 0, itemsWritten: 0, failedPosts: 0, heldBack: false };
  let failuresInARow = 0;
  let stop = false;
  const claimTurn = claimTurns();
  await inParallel(ctx.options.lookupConcurrency, async () => {
    while (!stop) {
      let outcome: BatchOutcome;
      try {
        outcome = await refreshCountsBatch(ctx.pool, ctx.x, now, { likesSampled: ctx.options.likesSampled, fullRefreshSeconds: ctx.options.fullRefreshSeconds, claimTurn });
      } catch (error) {
        stop = true;
        throw error;
      }
      if (outcome.kind === 'empty') return;
      if (outcome.kind === 'held_back') {
        stop = true;
        report.heldBack = true;
        ctx.metrics.heldBack.inc({ endpoint: 'posts_lookup' });
        ctx.logger.warn('engagement lookups held back', { error: outcome.error.message });
        return;
      }
      report.batches += 1;
      if (outcome.kind === 'failed') {
        report.failedPosts += outcome.posts;
        failuresInARow += 1;
        ctx.logger.warn('engagement lookup failed', { posts: outcome.posts, failuresInARow, error: outcome.error.message });
        if (failuresInARow >= ctx.options.maxLookupFailures) stop = true;
        continue;
      }
      failuresInARow = 0;
      report.refreshed += outcome.refreshed;
      report.changed += outcome.changed;
      report.full += outcome.full;
      report.gone += outcome.gone;
      report.deleted += outcome.deleted;
      if (outcome.deleted > 0) ctx.logger.info('posts deleted on X erased', { posts: outcome.deleted });
      report.itemsWritten += outcome.itemsWritten;
    }
  });
  ctx.metrics.postsRefreshed.inc(report.refreshed);
  ctx.metrics.postsChanged.inc(report.changed);
  ctx.metrics.postsRecomputed.inc(report.full);
  return report;
}

/** Counts one sample's outcome; true when a call went out to X. */
function account(ctx: PollerContext, kind: SampleKind, outcome: SampleOutcome, report: KindReport): boolean {
  const endpoint = ENDPOINT_OF[kind];
  if (outcome.kind === 'skipped') return false;
  if (outcome.kind === 'held_back') {
    report.heldBack = true;
    ctx.metrics.heldBack.inc({ endpoint });
    ctx.logger.warn('engagement samples held back', { kind, error: outcome.error.message });
    return (outcome.error as { upstream?: boolean }).upstream === true;
  }
  report.calls += 1;
  if (outcome.kind === 'failed') {
    ctx.logger.warn('engagement sample failed', { kind, error: outcome.error.message });
    return true;
  }
  report.sampled += 1;
  report.newEngagers += outcome.newEngagers;
  report.stored += outcome.stored;
  report.droppedForQuota += outcome.droppedForQuota;
  ctx.metrics.newEngagers.inc({ kind }, outcome.newEngagers);
  ctx.metrics.items.inc({ kind }, outcome.stored);
  ctx.metrics.feed.itemsStored.inc({ type: 'engagement' }, outcome.stored);
  ctx.metrics.droppedForQuota.inc(outcome.droppedForQuota);
  return true;
}

async function takeBudget(ctx: PollerContext, kind: SampleKind, want: number, now: Date): Promise<number> {
  try {
    return await ctx.budget.take(kind, want, now);
  } catch (error) {
    // Sample calls cost money and scarce rate limit: without the shared budget, make none.
    ctx.logger.warn('engagement sample budget unavailable', { kind, error: (error as Error).message });
    return 0;
  }
}

/** Spends this category's budget on the posts whose count rose most since their last sample. */
async function sampleKind(ctx: PollerContext, kind: SampleKind, now: Date): Promise<KindReport> {
  const report: KindReport = { candidates: 0, granted: 0, calls: 0, sampled: 0, newEngagers: 0, stored: 0, droppedForQuota: 0, heldBack: false };
  const { rows } = await ctx.pool.query<{ x_post_id: string }>(candidatesSql(kind), [now, ctx.options.maxSamplesPerCycle]);
  report.candidates = rows.length;
  if (rows.length === 0) return report;
  let tokens = await takeBudget(ctx, kind, rows.length, now);
  report.granted = tokens;
  let next = 0;
  await inParallel(Math.min(ctx.options.sampleConcurrency, tokens), async () => {
    while (tokens > 0 && !report.heldBack && next < rows.length) {
      const postId = (rows[next++] as { x_post_id: string }).x_post_id;
      tokens -= 1;
      const outcome = await samplePost(ctx, kind, postId, now);
      // A post held by another replica or no longer wanted costs nothing: its call goes to the next one.
      if (!account(ctx, kind, outcome, report)) tokens += 1;
    }
  });
  await ctx.budget.giveBack(kind, tokens).catch(() => undefined);
  return report;
}

async function relayAll(ctx: PollerContext): Promise<number> {
  if (!ctx.relay) return 0;
  let relayed = 0;
  for (let round = 0; round < 20; round += 1) {
    const moved = await ctx.relay();
    relayed += moved;
    if (moved === 0) break;
  }
  return relayed;
}

/** One cycle: discovery, counts, samples, relay and clean-up (see {@link EngagementPoller.runCycle}). */
async function runCycle(ctx: PollerContext, cycle: { lateByMs?: number }): Promise<CycleReport> {
  const started = Date.now();
  const now = new Date(ctx.now().getTime() - Math.max(0, cycle.lateByMs ?? 0));
  let mark = started;
  const lap = () => {
    const elapsed = Date.now() - mark;
    mark = Date.now();
    return elapsed;
  };
  try {
    const discovered = await discoverTrackedPosts(ctx.pool, ctx.redis, ctx.keyPrefix, now);
    const changedAccounts = await markChangedAccounts(ctx.pool, ctx.redis, ctx.keyPrefix, now);
    const discoveryMs = lap();
    const counts = await refreshCounts(ctx, now);
    const countsMs = lap();
    const samples: CycleReport['samples'] = {};
    for (const kind of ctx.kinds) samples[kind] = await sampleKind(ctx, kind, now);
    const samplesMs = lap();
    // Committed alerts reach BullMQ even when relaying fails here: the rows stay for the next relay.
    const relayed = await relayAll(ctx).catch((error: Error) => {
      ctx.logger.warn('outbox relay failed', { error: error.message });
      return 0;
    });
    const relayMs = lap();
    const retention = new Date(now.getTime() - ctx.options.finishedStateRetentionHours * 3_600_000);
    const finishedStatesRemoved = (await ctx.pool.query(REMOVE_FINISHED, [retention])).rowCount ?? 0;
    const report: CycleReport = {
      discovered,
      changedAccounts,
      counts,
      samples,
      relayed,
      finishedStatesRemoved,
      durationMs: Date.now() - started,
      phases: { discoveryMs, countsMs, samplesMs, relayMs },
    };
    ctx.metrics.cycles.inc({ result: 'ok' });
    ctx.metrics.cycleSeconds.set(report.durationMs / 1000);
    return report;
  } catch (error) {
    ctx.metrics.cycles.inc({ result: 'error' });
    throw error;
  }
}

/** Samples one post now: the `sample-engagement` job (see {@link EngagementPoller.sampleNow}). */
async function sampleNow(ctx: PollerContext, xPostId: string): Promise<Partial<Record<SampleKind, SampleOutcome['kind']>>> {
  const now = ctx.now();
  const outcomes: Partial<Record<SampleKind, SampleOutcome['kind']>> = {};
  for (const kind of ctx.kinds) {
    if ((await takeBudget(ctx, kind, 1, now)) === 0) continue;
    const report: KindReport = { candidates: 1, granted: 1, calls: 0, sampled: 0, newEngagers: 0, stored: 0, droppedForQuota: 0, heldBack: false };
    const outcome = await samplePost(ctx, kind, xPostId, now);
    if (!account(ctx, kind, outcome, report)) await ctx.budget.giveBack(kind, 1).catch(() => undefined);
    outcomes[kind] = outcome.kind;
  }
  await relayAll(ctx);
  return outcomes;
}

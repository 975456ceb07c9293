import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { eraseAccount } from '@hashwatch/accounts';
import { isPgError, PgErrorCode, transaction } from '@hashwatch/db';
import {
  DELETE_EXPIRED_ITEMS,
  DELETE_OLD_NOTICES,
  DELETE_UNREFERENCED_POSTS,
  EXPIRED_ACCOUNTS,
  LOCK_POSTS,
  LONGEST_RETENTION,
  PICK_ORPHAN_POSTS,
  STALE_PENDING_ACCOUNTS,
} from './retention-statements';

const DAY_MS = 86_400_000;

/** How the sweep paces itself; the defaults are what the scanner runs (bench/retention-sweep.ts measured them). */
export interface SweepLimits {
  /** Rows one statement deletes at most. */
  batchSize: number;
  /** Pause after each batch, so the feed's readers and writers are never starved of the database. */
  pauseMs: number;
  /** A run stops starting batches after this long; the next run takes the rest. */
  budgetMs: number;
  /** A run stops starting batches after deleting this many feed items and posts in all. */
  maxRows: number;
  /** A checkout account still `pending` this long after it was created is erased. */
  pendingDays: number;
  /** Posts first seen this many days before the longest plan retention, and referenced by no item, are deleted. */
  orphanGraceDays: number;
}

export const DEFAULT_SWEEP_LIMITS: SweepLimits = {
  batchSize: 1_000,
  pauseMs: 20,
  budgetMs: 120_000,
  maxRows: 1_000_000,
  pendingDays: 7,
  orphanGraceDays: 2,
};

/** What one run deleted, logged as JSON by the worker. */
export interface SweepSummary {
  items: number;
  itemSources: number;
  posts: number;
  engagementStates: number;
  pendingAccounts: number;
  /** Resolved notices past their plan's retention. */
  notices: number;
  batches: number;
  /** Batches given up on a lock held by a feed writer (rolled back whole; the next run retries them). */
  contended: number;
  /** True when the budget ran out before the work did. */
  budgetSpent: boolean;
  durationMs: number;
}

export interface SweepOptions {
  limits?: Partial<SweepLimits>;
  now?: () => Date;
  /** Aborted when the process stops: the run ends after its current batch, well inside the shutdown bound. */
  signal?: AbortSignal;
}

// A batch waits at most this long for a row lock (a post a scanner transaction holds): it is rolled back and
// retried at the next run rather than hold its own deleted rows locked while it waits.
const LOCK_TIMEOUT = `SET LOCAL lock_timeout = '2s'`;
const LOCK_NOT_AVAILABLE = '55P03';

interface Run {
  pool: pg.Pool;
  limits: SweepLimits;
  signal: AbortSignal | undefined;
  now: Date;
  startedAt: number;
  summary: SweepSummary;
}

function spent(run: Run): boolean {
  const rows = run.summary.items + run.summary.posts;
  run.summary.budgetSpent = Date.now() - run.startedAt >= run.limits.budgetMs || rows >= run.limits.maxRows;
  return run.summary.budgetSpent || run.signal?.aborted === true;
}

/** Runs one batch transaction; a deadlock or lock timeout rolls it back whole and counts it as contended. */
async function batch<T>(run: Run, work: (client: pg.PoolClient) => Promise<T>): Promise<T | undefined> {
  run.summary.batches += 1;
  try {
    return await transaction(run.pool, async (client) => {
      await client.query(LOCK_TIMEOUT);
      return work(client);
    });
  } catch (error) {
    if (!isPgError(error, PgErrorCode.deadlockDetected) && !isPgError(error, LOCK_NOT_AVAILABLE)) throw error;
    run.summary.contended += 1;
    return undefined;
  } finally {
    if (run.limits.pauseMs > 0) await sleep(run.limits.pauseMs);
  }
}

async function deletePosts(run: Run, client: pg.PoolClient, postIds: readonly string[]): Promise<void> {
  if (postIds.length === 0) return;
  const { rows } = await client.query<{ posts: number; states: number }>(DELETE_UNREFERENCED_POSTS, [postIds, run.now]);
  run.summary.posts += rows[0]?.posts ?? 0;
  run.summary.engagementStates += rows[0]?.states ?? 0;
}

/** Deletes one account's expired items batch by batch; false when the budget ran out first. */
async function sweepAccount(run: Run, userId: string, cutoff: Date): Promise<boolean> {
  for (;;) {
    if (spent(run)) return false;
    const deleted = await batch(run, async (client) => {
      const { rows } = await client.query<{ items: number; sources: number; post_ids: string[] }>(DELETE_EXPIRED_ITEMS, [userId, cutoff, run.limits.batchSize]);
      const row = rows[0] ?? { items: 0, sources: 0, post_ids: [] };
      await client.query(LOCK_POSTS, [row.post_ids]);
      await deletePosts(run, client, row.post_ids);
      return row;
    });
    if (!deleted) return true;
    run.summary.items += deleted.items;
    run.summary.itemSources += deleted.sources;
    // Fewer than a batch: the rest is gone, pending delivery, or another sweep's (it deletes those).
    if (deleted.items < run.limits.batchSize) return true;
  }
}

async function sweepOrphanPosts(run: Run): Promise<void> {
  const { rows } = await run.pool.query<{ days: number }>(LONGEST_RETENTION);
  const cutoff = new Date(run.now.getTime() - ((rows[0]?.days ?? 90) + run.limits.orphanGraceDays) * DAY_MS);
  for (;;) {
    if (spent(run)) return;
    const picked = await batch(run, async (client) => {
      const { rows: posts } = await client.query<{ id: string }>(PICK_ORPHAN_POSTS, [cutoff, run.now, run.limits.batchSize]);
      await deletePosts(run, client, posts.map((post) => post.id));
      return posts.length;
    });
    if (picked !== undefined && picked < run.limits.batchSize) return;
  }
}

async function sweepOldNotices(run: Run): Promise<void> {
  for (;;) {
    if (spent(run)) return;
    const deleted = await batch(run, async (client) => (await client.query(DELETE_OLD_NOTICES, [run.now, run.limits.batchSize])).rowCount ?? 0);
    if (deleted === undefined) return;
    run.summary.notices += deleted;
    if (deleted < run.limits.batchSize) return;
  }
}

async function sweepPendingAccounts(run: Run): Promise<void> {
  const before = new Date(run.now.getTime() - run.limits.pendingDays * DAY_MS);
  for (;;) {
    if (spent(run)) return;
    const { rows } = await run.pool.query<{ id: string }>(STALE_PENDING_ACCOUNTS, [before, 100]);
    for (const { id } of rows) {
      // The erasure checks again, on the row it deletes, that the account is still pending: a checkout paid
      // meanwhile keeps its account.
      if (await eraseAccount(run.pool, id, { pendingBefore: before })) run.summary.pendingAccounts += 1;
    }
    if (rows.length < 100) return;
  }
}

/**
 * One run of the retention sweep: the feed items past their plan's retention (by detected_at), account by
 * account, with what references them; the posts only they referenced; posts no item references that are older
 * than every plan's retention; resolved notices past their plan's retention; and checkout accounts left unpaid for `pendingDays`, erased as `DELETE /me`
 * erases. Bounded by the budget; safe to run on several replicas at once.
 */
export async function sweepRetention(pool: pg.Pool, options: SweepOptions = {}): Promise<SweepSummary> {
  const run: Run = {
    pool,
    limits: { ...DEFAULT_SWEEP_LIMITS, ...options.limits },
    signal: options.signal,
    now: options.now?.() ?? new Date(),
    startedAt: Date.now(),
    summary: { items: 0, itemSources: 0, posts: 0, engagementStates: 0, pendingAccounts: 0, notices: 0, batches: 0, contended: 0, budgetSpent: false, durationMs: 0 },
  };
  const { rows: accounts } = await pool.query<{ user_id: string; cutoff: Date }>(EXPIRED_ACCOUNTS, [run.now]);
  let within = true;
  for (const account of accounts) {
    within = await sweepAccount(run, account.user_id, account.cutoff);
    if (!within) break;
  }
  if (within) await sweepOrphanPosts(run);
  if (!spent(run)) await sweepOldNotices(run);
  if (!spent(run)) await sweepPendingAccounts(run);
  run.summary.durationMs = Date.now() - run.startedAt;
  return run.summary;
}

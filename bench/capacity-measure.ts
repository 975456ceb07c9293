// What the capacity scenario seeds and reads: the population's accounts and tracks in the run's database, its
// watched users in the x-sim, and the counters it compares with the model (X calls per endpoint from the x-sim,
// Redis commands from INFO of the run's own Redis, PostgreSQL rows and bytes per table, CPU per app process).
import { readdirSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { z } from 'zod';
import { cpuSecondsOf } from './bench-support';
import { PLAN_MIX, type Population } from './capacity-population';

export const MEASURED_TABLES = ['feed_items', 'feed_item_sources', 'x_posts', 'outbox_jobs', 'source_cursors', 'usage_periods', 'engagement_states'] as const;

/** One reading of every counter the scenario compares. */
export interface Reading {
  at: number;
  xCalls: Record<string, number>;
  redisCommands: number;
  /** Updates of the feed clock's row: one per feed transaction. */
  feedTransactions: number;
  /** route-alerts jobs the notifiers took (their hashwatch_queue_job_wait_seconds count for alert-routing). */
  routingJobs: number;
  rowsInserted: Record<string, number>;
  bytes: Record<string, number>;
  cpuSeconds: Record<string, number>;
}

const countersSchema = z.object({ endpoints: z.record(z.string(), z.object({ requests: z.number() })) });
const tableStatsSchema = z.object({ relname: z.string(), inserted: z.coerce.number(), bytes: z.coerce.number() });

/** Accounts of the population (ids `usr_cap<i>`), with their plan's snapshot, hashtag tracks and account tracks. */
export async function seedPopulation(pool: pg.Pool, population: Population): Promise<void> {
  const ids = population.accounts.map((account) => `usr_cap${account.index}`);
  const plans = population.accounts.map((account) => account.plan);
  await pool.query(
    `INSERT INTO users (id, email, plan_id, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit,
                        scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute, subscription_status,
                        current_period_start, current_period_end)
     SELECT a.id, a.id || '@example.com', p.id, p.hashtags_limit, p.accounts_limit, p.engagement_limit, p.webhooks_limit,
            p.alerts_limit, ($3::jsonb ->> p.id)::int, p.engagement_refresh_seconds, p.rate_limit_per_minute, 'active', now(),
            now() + interval '30 days'
       FROM unnest($1::text[], $2::text[]) AS a(id, plan) JOIN plans p ON p.id = a.plan`,
    [ids, plans, JSON.stringify(Object.fromEntries(Object.entries(PLAN_MIX).map(([plan, profile]) => [plan, profile.scanIntervalSeconds])))],
  );
  const tagRows = population.accounts.flatMap((account) => account.tags.map((tag) => [`usr_cap${account.index}`, tag] as const));
  const userRows = population.accounts.flatMap((account) => account.users.map((user) => [`usr_cap${account.index}`, user] as const));
  await pool.query(
    `INSERT INTO tracks (id, user_id, hashtag, hashtag_norm, created_at)
     SELECT 'trk_cap' || i, t.user_id, t.tag, lower(t.tag), now() - interval '1 minute'
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(user_id, tag, i)`,
    [tagRows.map((row) => row[0]), tagRows.map((row) => row[1])],
  );
  await pool.query(
    `INSERT INTO account_tracks (id, user_id, username, username_norm, created_at)
     SELECT 'acc_cap' || i, t.user_id, t.username, lower(t.username), now() - interval '1 minute'
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(user_id, username, i)`,
    [userRows.map((row) => row[0]), userRows.map((row) => row[1])],
  );
}

/** The watched users exist on X, so the scanner resolves every handle. */
export async function createSimUsers(simUrl: string, handles: readonly string[]): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < handles.length) {
      const username = handles[next] as string;
      next += 1;
      const response = await fetch(`${simUrl}/_sim/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username }) });
      if (!response.ok) throw new Error(`x-sim refused user ${username}: ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
}

/** X's rate limits lifted on the endpoints the scanner uses: the scenario counts the calls the service wants to make. */
export async function liftSimLimits(simUrl: string): Promise<void> {
  for (const endpoint of ['search_recent', 'users_by_usernames', 'posts_lookup']) {
    const response = await fetch(`${simUrl}/_sim/rate-limits`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ endpoint, app: 10_000_000, user: 10_000_000 }),
    });
    if (!response.ok) throw new Error(`x-sim refused the limits of ${endpoint}: ${response.status} ${await response.text()}`);
  }
}

export async function injectPost(simUrl: string, post: { author: string; tags: string[] }, n: number): Promise<void> {
  const response = await fetch(`${simUrl}/_sim/posts`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ author: post.author, text: `${post.tags.map((tag) => `#${tag}`).join(' ')} capacity post ${n}` }),
  });
  if (!response.ok) throw new Error(`x-sim refused a post: ${response.status}`);
}

async function redisCommands(redis: Redis): Promise<number> {
  const info = await redis.info('stats');
  const match = /total_commands_processed:(\d+)/.exec(info);
  if (!match) throw new Error('INFO stats has no total_commands_processed');
  return Number(match[1]);
}

const ROUTING_JOBS = /^hashwatch_queue_job_wait_seconds_count\{([^}]*)\} (\S+)$/;

/** Jobs of the alert-routing queue the processes behind `metricsUrls` took, from their GET /metrics. */
async function routingJobsTaken(metricsUrls: readonly string[]): Promise<number> {
  let sum = 0;
  for (const url of metricsUrls) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    for (const line of (await response.text()).split('\n')) {
      const match = ROUTING_JOBS.exec(line);
      if (match?.[1]?.includes('queue="alert-routing"')) sum += Number(match[2]);
    }
  }
  return sum;
}

/**
 * Pids of the PostgreSQL server's processes (postmaster and backends), read afresh at each reading: the server is
 * shared, so its CPU between two readings says how busy the database was while the scenario ran on it alone.
 */
function postgresPids(): string[] {
  const pids: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

export async function read(pool: pg.Pool, simUrl: string, redis: Redis, pids: Record<string, number[]>, notifierMetricsUrls: readonly string[] = []): Promise<Reading> {
  const counters = countersSchema.parse(await (await fetch(`${simUrl}/_sim/counters`)).json());
  const { rows } = await pool.query(
    `SELECT relname, n_tup_ins AS inserted, pg_total_relation_size(relid) AS bytes FROM pg_stat_user_tables WHERE relname = ANY($1::text[])`,
    [[...MEASURED_TABLES]],
  );
  const clock = await pool.query<{ updates: string }>(`SELECT n_tup_upd AS updates FROM pg_stat_user_tables WHERE relname = 'feed_clock'`);
  const stats = rows.map((row) => tableStatsSchema.parse(row));
  const cpuSeconds: Record<string, number> = {};
  for (const [app, list] of Object.entries(pids)) {
    let sum = 0;
    for (const seconds of cpuSecondsOf(list).values()) sum += seconds;
    cpuSeconds[app] = sum;
  }
  // Backends that ended between two readings take their CPU with them: a lower bound, the apps' pools keep theirs.
  cpuSeconds.postgres = [...cpuSecondsOf(postgresPids()).values()].reduce((a, b) => a + b, 0);
  return {
    at: Date.now(),
    xCalls: Object.fromEntries(Object.entries(counters.endpoints).map(([endpoint, value]) => [endpoint, value.requests])),
    redisCommands: await redisCommands(redis),
    feedTransactions: Number(clock.rows[0]?.updates ?? 0),
    routingJobs: await routingJobsTaken(notifierMetricsUrls),
    rowsInserted: Object.fromEntries(stats.map((row) => [row.relname, row.inserted])),
    bytes: Object.fromEntries(stats.map((row) => [row.relname, row.bytes])),
    cpuSeconds,
  };
}

/** Per-second rates and totals between two readings. */
export interface Window {
  seconds: number;
  xCalls: Record<string, number>;
  redisOpsPerSecond: number;
  feedTransactions: number;
  routingJobs: number;
  rowsInserted: Record<string, number>;
  bytesGrown: Record<string, number>;
  cpuSecondsPerSecond: Record<string, number>;
}

export function between(before: Reading, after: Reading): Window {
  const seconds = (after.at - before.at) / 1000;
  const diff = (a: Record<string, number>, b: Record<string, number>) => Object.fromEntries(Object.keys(b).map((key) => [key, (b[key] ?? 0) - (a[key] ?? 0)]));
  return {
    seconds,
    xCalls: diff(before.xCalls, after.xCalls),
    redisOpsPerSecond: (after.redisCommands - before.redisCommands) / seconds,
    feedTransactions: after.feedTransactions - before.feedTransactions,
    routingJobs: after.routingJobs - before.routingJobs,
    rowsInserted: diff(before.rowsInserted, after.rowsInserted),
    bytesGrown: diff(before.bytes, after.bytes),
    cpuSecondsPerSecond: Object.fromEntries(Object.entries(diff(before.cpuSeconds, after.cpuSeconds)).map(([app, value]) => [app, value / seconds])),
  };
}

/** Bytes per row of each table as it stands: its total size (indexes and TOAST included) over its rows. */
export async function bytesPerRow(pool: pg.Pool): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const table of MEASURED_TABLES) {
    const { rows } = await pool.query<{ rows: string; bytes: string }>(`SELECT count(*) AS rows, pg_total_relation_size('${table}') AS bytes FROM ${table}`);
    const row = rows[0];
    if (row && Number(row.rows) > 0) result[table] = Number(row.bytes) / Number(row.rows);
  }
  return result;
}

export function privateRedisClient(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 3 });
  redis.on('error', () => undefined);
  return redis;
}

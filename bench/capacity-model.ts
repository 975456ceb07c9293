// The capacity model: from figures measured in bench/ (bench/capacity-units.json, written by
// `capacity-scenario.ts --scale 1 --record`, and the runs docs/BENCHMARKS.md records) and the plan mix of
// bench/capacity-population.ts, what 1k, 10k and 100k accounts need: X calls per 15 minutes per endpoint against
// X's limits, Redis commands/s, PostgreSQL rows and bytes per day, replicas per app, and where each serialising
// point binds.
//
// docs/CAPACITY.md's tables are printed from it by bench/capacity-doc.ts (--markdown, --write, --check).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildPopulation, fanOut, PLAN_MIX, postStream, queriesPerCadence, watchersOf, type PlanName, type Population } from './capacity-population';
import type { ScenarioResult } from './capacity-scenario';

export const UNITS_PATH = path.join(__dirname, 'capacity-units.json');
const DOC_PATH = path.join(__dirname, '..', 'docs', 'CAPACITY.md');

/** What `capacity-scenario.ts --record` wrote. */
export interface MeasuredUnits {
  recordedAt: string;
  machine: string;
  command: string;
  postsPerSecond: number;
  result: ScenarioResult;
}

/** X's published per-app limits per 15-minute window (/work/shared/reference PLATFORMS.md §b, pay-per-use). */
export const X_LIMITS = { search_recent: 450, posts_lookup: 3_500, liking_users: 75, retweeted_by: 75, users_by_usernames: 300 } as const;

/** Figures of docs/BENCHMARKS.md used as throughput per replica; each names its run. */
export const BENCH_FIGURES = {
  notifierAlertsPerSecond: { value: 1_601, label: 'notifier: alerts delivered/s per replica', from: 'BENCHMARKS, Notifier, "notifier alone", run 11 (the lowest of runs 10-12)' },
  pollerPostsPerSecond: { value: 100_000 / 2.8, label: 'engagement poller: posts refreshed/s per replica', from: 'BENCHMARKS, Engagement, cycle: 100,000 posts in 2.80 s (steady)' },
  gatewayRequestsPerSecond: { value: 3_925, label: 'gateway: GET /v1/posts req/s per process', from: 'BENCHMARKS, GET /v1/posts, run 4 round 2 (the lowest feed page)' },
  sourceSyncMilliseconds: { value: 309, label: 'scanner source sync at 10,000 accounts (103,000 tracks), ms', from: 'BENCHMARKS, Capacity, EXPLAIN ANALYZE of the sync on the scenario population' },
  feedClockTransactionsPerSecond: { value: 169, label: 'feed clock: feed transactions/s, all writers together', from: 'BENCHMARKS, Capacity, bench/capacity-feed-clock.ts at 16 writers' },
} as const;

/** Assumptions beyond the plan mix (bench/capacity-population.ts). */
export const ASSUMPTIONS = {
  /** Replicas are sized to run at this share of their measured throughput (one core each). */
  utilisation: 0.5,
  /** Accounts use their whole monthly alert quota, evenly: the most the plans let them store and deliver. */
  quotaUse: 1,
  /** Channels each item is delivered to. */
  channelsPerItem: 1,
  /** Share of the feed's posts whose engagement is tracked, and for how long (the poller's 48-hour window). */
  engagementTrackedShare: 1 / 3,
  engagementWindowSeconds: 48 * 3600,
  /** Share of accounts with a live feed open (dashboard or SDK `watch`), polling every 2 s (the SDK's default). */
  watchingShare: 0.1,
  watchIntervalSeconds: 2,
  /** Replicas kept for availability whatever the load. */
  minimumReplicas: 2,
};

/** Per-unit figures derived from the recorded scenario run. */
export interface Units {
  /** Search requests made per ideal query-cycle (pages, and ticks landing after the cadence). */
  searchPerQueryCycle: number;
  /** Redis commands/s of the five processes with nothing to scan: BullMQ's polling and schedulers. */
  redisOpsIdle: number;
  redisOpsPerSearch: number;
  redisOpsPerItem: number;
  /** Items stored per account a post reached (1 unless quotas or dedupe drop some). */
  storedPerMatch: number;
  rowsPerItem: Record<string, number>;
  xPostsPerPost: number;
  bytesPerRow: Record<string, number>;
  scannerCpuPerSearch: number;
  scannerCpuPerItem: number;
  notifierCpuPerItem: number;
}

const round = (value: number, digits = 3) => Number(value.toPrecision(digits));

/** Search requests a window of `seconds` should see if every cadence ran exactly on time, one request per query. */
export function idealSearches(queries: Record<string, number> | Map<number, number>, seconds: number): number {
  const entries = queries instanceof Map ? [...queries] : Object.entries(queries).map(([cadence, count]) => [Number(cadence), count] as const);
  return entries.reduce((sum, [cadence, count]) => sum + (count * seconds) / cadence, 0);
}

export function deriveUnits(measured: MeasuredUnits): Units {
  const { result } = measured;
  const { scan, posts } = result;
  const scanSearches = scan.xCalls.search_recent ?? 0;
  const postSearches = posts.xCalls.search_recent ?? 0;
  // Stored in the window: what the scanner wrote while posts arrived (the rates the window's Redis and CPU carry).
  const itemsPerSecond = (posts.rowsInserted.feed_items ?? 0) / posts.seconds;
  const scanSearchRate = scanSearches / scan.seconds;
  const cpu = (window: typeof scan, app: string) => window.cpuSecondsPerSecond[app] ?? 0;
  const drainedItems = result.itemsAfterDrain;
  return {
    searchPerQueryCycle: scanSearches / idealSearches(result.queriesPerCadence, scan.seconds),
    redisOpsIdle: result.idle.redisOpsPerSecond,
    redisOpsPerSearch: (scan.redisOpsPerSecond - result.idle.redisOpsPerSecond) / scanSearchRate,
    redisOpsPerItem: (posts.redisOpsPerSecond - result.idle.redisOpsPerSecond - ((scan.redisOpsPerSecond - result.idle.redisOpsPerSecond) * postSearches) / posts.seconds / scanSearchRate) / itemsPerSecond,
    storedPerMatch: drainedItems / (result.postsInjected * result.meanFanOut),
    rowsPerItem: Object.fromEntries(['feed_item_sources', 'outbox_jobs'].map((table) => [table, (result.rowsAfterDrain[table] ?? 0) / drainedItems])),
    xPostsPerPost: (result.rowsAfterDrain.x_posts ?? 0) / result.postsInjected,
    bytesPerRow: result.bytesPerRow,
    scannerCpuPerSearch: cpu(scan, 'scanner') / scanSearchRate,
    scannerCpuPerItem: (cpu(posts, 'scanner') - cpu(scan, 'scanner')) / itemsPerSecond,
    notifierCpuPerItem: (cpu(posts, 'notifier') - cpu(scan, 'notifier')) / itemsPerSecond,
  };
}

export function loadUnits(): MeasuredUnits {
  return JSON.parse(readFileSync(UNITS_PATH, 'utf8')) as MeasuredUnits;
}

function meanFanOut(population: Population, seed = 7, sample = 4000): number {
  const next = postStream(population, seed);
  const watchers = watchersOf(population);
  let sum = 0;
  for (let i = 0; i < sample; i += 1) sum += fanOut(population, next(), watchers);
  return sum / sample;
}

/** The model's figures for one scenario window: what `capacity-scenario.ts` should measure at this scale. */
export function predictWindow(units: Units, population: Population, seconds: number, postsPerSecond: number, fanOutMean: number) {
  const queries = queriesPerCadence(population.sources, 512);
  const searches = units.searchPerQueryCycle * idealSearches(queries, seconds);
  const itemsPerSecond = postsPerSecond * fanOutMean * units.storedPerMatch;
  return {
    searches,
    itemsPerSecond,
    redisOpsPerSecond: units.redisOpsIdle + units.redisOpsPerSearch * (searches / seconds) + units.redisOpsPerItem * itemsPerSecond,
    feedItemSourcesRows: itemsPerSecond * seconds * (units.rowsPerItem.feed_item_sources ?? 0),
    feedItemsBytes: itemsPerSecond * seconds * (units.bytesPerRow.feed_items ?? 0),
    scannerCpu: units.scannerCpuPerSearch * (searches / seconds) + units.scannerCpuPerItem * itemsPerSecond,
  };
}

/** Model against measurement for a scenario run: one line per figure, with the ratio. */
export function compareWithModel(result: ScenarioResult, population: Population, postsPerSecond: number): string[] {
  const units = deriveUnits(loadUnits());
  const predicted = predictWindow(units, population, result.posts.seconds, postsPerSecond, result.meanFanOut);
  const measured = {
    searches: result.posts.xCalls.search_recent ?? 0,
    // Items of the window's posts, counted once the last of them were scanned (the drain).
    itemsPerSecond: result.itemsAfterDrain / result.posts.seconds,
    redisOpsPerSecond: result.posts.redisOpsPerSecond,
    feedItemSourcesRows: result.rowsAfterDrain.feed_item_sources ?? 0,
    feedItemsBytes: result.bytesAfterDrain.feed_items ?? 0,
    scannerCpu: result.posts.cpuSecondsPerSecond.scanner ?? 0,
  };
  const lines = ['| figure (posts window) | model | measured | measured / model | within 25 % |', '|---|---:|---:|---:|---|'];
  for (const key of Object.keys(predicted) as (keyof typeof predicted)[]) {
    const ratio = measured[key] / predicted[key];
    lines.push(`| ${key} | ${round(predicted[key], 4)} | ${round(measured[key], 4)} | ${ratio.toFixed(2)} | ${Math.abs(ratio - 1) <= 0.25 ? 'yes' : 'NO'} |`);
  }
  return lines;
}

/** Everything the doc's tables show for one account count. */
export interface Plan {
  accounts: number;
  sources: number;
  queries512: number;
  queries4096: number;
  searchesPer15Min: number;
  searchesPer15Min4096: number;
  postsLookupPer15Min: number;
  itemsPerSecond: number;
  postsPerSecond: number;
  trackedPosts: number;
  redisOpsPerSecond: number;
  feedTransactionsPerSecond: number;
  rowsPerDay: Record<string, number>;
  bytesPerDay: Record<string, number>;
  replicas: Record<string, { load: string; computed: number }>;
}

function quotaItemsPerSecond(population: Population): number {
  let perMonth = 0;
  for (const account of population.accounts) perMonth += PLAN_MIX[account.plan].alertsPerMonth * ASSUMPTIONS.quotaUse;
  return perMonth / (30 * 86_400);
}

function weightedRefreshSeconds(population: Population): number {
  // Items (and so tracked posts) come from each plan in proportion to its quota; each refreshes at its plan's interval.
  const weight = new Map<PlanName, number>();
  for (const account of population.accounts) weight.set(account.plan, (weight.get(account.plan) ?? 0) + PLAN_MIX[account.plan].alertsPerMonth);
  const total = [...weight.values()].reduce((a, b) => a + b, 0);
  const refreshesPerSecond = [...weight].reduce((sum, [plan, w]) => sum + w / total / PLAN_MIX[plan].engagementRefreshSeconds, 0);
  return 1 / refreshesPerSecond;
}

export function planFor(accounts: number, units: Units): Plan {
  const population = buildPopulation(accounts);
  const q512 = queriesPerCadence(population.sources, 512);
  const q4096 = queriesPerCadence(population.sources, 4096);
  const sum = (map: Map<number, number>) => [...map.values()].reduce((a, b) => a + b, 0);
  const searchesPer15Min = units.searchPerQueryCycle * idealSearches(q512, 900);
  const searchesPer15Min4096 = units.searchPerQueryCycle * idealSearches(q4096, 900);
  const itemsPerSecond = quotaItemsPerSecond(population);
  const postsPerSecond = itemsPerSecond / meanFanOut(population);
  const trackedPosts = postsPerSecond * ASSUMPTIONS.engagementTrackedShare * ASSUMPTIONS.engagementWindowSeconds;
  const refreshSeconds = weightedRefreshSeconds(population);
  const postsLookupPer15Min = Math.ceil(trackedPosts / 100) * (900 / refreshSeconds);
  const searchesPerSecond = searchesPer15Min / 900;
  // Each search page is stored in at most one feed transaction, and a transaction stores at least one item.
  const feedTransactionsPerSecond = Math.min(searchesPerSecond, itemsPerSecond);
  const day = 86_400;
  const rowsPerDay: Record<string, number> = {
    feed_items: itemsPerSecond * day,
    feed_item_sources: itemsPerSecond * day * (units.rowsPerItem.feed_item_sources ?? 0),
    x_posts: postsPerSecond * day * units.xPostsPerPost,
    outbox_jobs: feedTransactionsPerSecond * day,
  };
  const bytesPerDay = Object.fromEntries(Object.entries(rowsPerDay).map(([table, rows]) => [table, rows * (units.bytesPerRow[table] ?? 0)]));
  const u = ASSUMPTIONS.utilisation;
  const scannerCpu = units.scannerCpuPerSearch * searchesPerSecond + units.scannerCpuPerItem * itemsPerSecond;
  const deliveries = itemsPerSecond * ASSUMPTIONS.channelsPerItem;
  const gatewayRequests = (accounts * ASSUMPTIONS.watchingShare) / ASSUMPTIONS.watchIntervalSeconds;
  const refreshedPerSecond = trackedPosts / refreshSeconds;
  const replicas = {
    scanner: { load: `${round(scannerCpu, 2)} CPU s/s`, computed: Math.ceil(scannerCpu / u) },
    notifier: { load: `${round(deliveries, 3)} deliveries/s`, computed: Math.ceil(deliveries / (BENCH_FIGURES.notifierAlertsPerSecond.value * u)) },
    'engagement-poller': { load: `${round(refreshedPerSecond, 3)} posts refreshed/s`, computed: Math.ceil(refreshedPerSecond / (BENCH_FIGURES.pollerPostsPerSecond.value * u)) },
    gateway: { load: `${round(gatewayRequests, 3)} req/s`, computed: Math.ceil(gatewayRequests / (BENCH_FIGURES.gatewayRequestsPerSecond.value * u)) },
  };
  return {
    accounts, sources: population.sources.length, queries512: sum(q512), queries4096: sum(q4096), searchesPer15Min, searchesPer15Min4096,
    postsLookupPer15Min, itemsPerSecond, postsPerSecond, trackedPosts,
    redisOpsPerSecond: units.redisOpsIdle + units.redisOpsPerSearch * searchesPerSecond + units.redisOpsPerItem * itemsPerSecond,
    feedTransactionsPerSecond, rowsPerDay, bytesPerDay, replicas,
  };
}

/**
 * Smallest account count (in steps of 5,000) at which feed transactions, if searches ran at the plans' intervals
 * with 512-character queries, would pass the clock's measured ceiling at the stated utilisation.
 */
export function clockBindsAt(units: Units): number {
  const ceiling = BENCH_FIGURES.feedClockTransactionsPerSecond.value * ASSUMPTIONS.utilisation;
  for (let accounts = 5_000; accounts <= 100_000; accounts += 5_000) {
    const population = buildPopulation(accounts);
    const searchesPerSecond = (units.searchPerQueryCycle * idealSearches(queriesPerCadence(population.sources, 512), 900)) / 900;
    if (Math.min(searchesPerSecond, quotaItemsPerSecond(population)) > ceiling) return accounts;
  }
  return Infinity;
}

/** Smallest account count (of a doubling series) whose search calls exceed one X app's 15-minute limit. */
export function searchBindsAt(units: Units): number {
  for (let accounts = 2; accounts <= 1_000_000; accounts *= 2) {
    if (units.searchPerQueryCycle * idealSearches(queriesPerCadence(buildPopulation(accounts).sources, 512), 900) > X_LIMITS.search_recent) return accounts;
  }
  return Infinity;
}

export { DOC_PATH };

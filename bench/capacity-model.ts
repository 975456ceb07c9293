// The capacity model: from figures measured in bench/ (bench/capacity-units.json, written by
// `capacity-scenario.ts --scale 1 --record`, and the runs docs/BENCHMARKS.md records) and the plan mix of
// bench/capacity-population.ts, what 1k, 10k and 100k accounts need: X calls per 15 minutes per endpoint against
// X's limits, Redis commands/s, PostgreSQL rows and bytes per day, replicas per app, and where each serialising
// point binds.
//
// docs/CAPACITY.md's tables are printed from it by bench/capacity-doc.ts (--markdown, --write, --check).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROUTE_ALERTS_MAX_ITEMS } from '@hashwatch/queues';
import { buildPopulation, feedBatches, PLAN_MIX, postHits, queriesPerCadence, reachedAccounts, type PlanName, type Population } from './capacity-population';
import type { ScenarioResult } from './capacity-scenario-result';
import { STREAM_LIMITS, streamCoverage, type StreamCoverage } from './capacity-stream';

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
  scannerItemsPerSecond: { value: 19_384, label: 'scanner: items stored/s, a tick end to end (fetch, store, relay), 5,000 items a batch', from: 'BENCHMARKS, Scanner, Ingest (wall time, PostgreSQL and the simulator on the same 2 cores)' },
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

/**
 * Per-unit figures derived from the recorded scenario run. The work that comes with items has the drivers the
 * code gives it: Redis per route-alerts job (the relay adds each job to BullMQ and a notifier takes and finishes
 * it; nothing in the scanner's store or in routing without channels touches Redis per item), scanner CPU per feed
 * batch (one transaction of a fixed number of statements, one outbox row, one relay) and per item (matching,
 * the rows' parameters and the rows returned, the jobs' payloads).
 */
export interface Units {
  /** Search requests made per ideal query-cycle (pages, and ticks landing after the cadence). */
  searchPerQueryCycle: number;
  /** Redis commands/s of the five processes with nothing to scan: BullMQ's polling and schedulers. */
  redisOpsIdle: number;
  redisOpsPerSearch: number;
  /** Redis commands per route-alerts job: its add by the relay, its take and finish by a notifier. */
  redisOpsPerRoutingJob: number;
  /** The same from the single phase (one item per job): a check on the driver, not used by the model. */
  redisOpsPerRoutingJobSingle: number;
  /** Items stored per account a post reached (1 unless quotas or dedupe drop some). */
  storedPerMatch: number;
  rowsPerItem: Record<string, number>;
  xPostsPerPost: number;
  bytesPerRow: Record<string, number>;
  /** Scanner CPU s/s with nothing to scan: its schedulers' ticks and BullMQ's polling. */
  scannerCpuIdle: number;
  scannerCpuPerSearch: number;
  scannerCpuPerBatch: number;
  scannerCpuPerItem: number;
}

const round = (value: number, digits = 3) => Number(value.toPrecision(digits));

/** Search requests a window of `seconds` should see if every cadence ran exactly on time, one request per query. */
export function idealSearches(queries: Record<string, number> | Map<number, number>, seconds: number): number {
  const entries = queries instanceof Map ? [...queries] : Object.entries(queries).map(([cadence, count]) => [Number(cadence), count] as const);
  return entries.reduce((sum, [cadence, count]) => sum + (count * seconds) / cadence, 0);
}

type Window = ScenarioResult['scan'];

export function deriveUnits(measured: MeasuredUnits): Units {
  const { result } = measured;
  const { idle, scan, single, posts } = result;
  const rate = (window: Window, count: number) => count / window.seconds;
  const searchRate = (window: Window) => rate(window, window.xCalls.search_recent ?? 0);
  const cpu = (window: Window) => window.cpuSecondsPerSecond.scanner ?? 0;
  const redisOpsPerSearch = (scan.redisOpsPerSecond - idle.redisOpsPerSecond) / searchRate(scan);
  const scannerCpuPerSearch = (cpu(scan) - cpu(idle)) / searchRate(scan);
  // What a window spent beyond the idle processes and its searches: the work its posts brought.
  const redisExtra = (window: Window) => window.redisOpsPerSecond - idle.redisOpsPerSecond - redisOpsPerSearch * searchRate(window);
  const cpuExtra = (window: Window) => cpu(window) - cpu(idle) - scannerCpuPerSearch * searchRate(window);
  // Scanner CPU per item: the ingest bench's tick end to end, whose batches of 5,000 items leave a batch's own work
  // out (an upper bound: its wall time holds PostgreSQL's and the simulator's too). The scenario's posts phase cannot
  // tell it apart from noise (a hundred items a batch, under a tenth of the scanner's CPU). Per batch: the single
  // phase (one item a batch), less that item.
  const scannerCpuPerItem = 1 / BENCH_FIGURES.scannerItemsPerSecond.value;
  const b1 = rate(single, single.feedTransactions);
  const i1 = rate(single, single.rowsInserted.feed_items ?? 0);
  const drainedItems = result.itemsAfterDrain;
  return {
    searchPerQueryCycle: (scan.xCalls.search_recent ?? 0) / idealSearches(result.queriesPerCadence, scan.seconds),
    redisOpsIdle: idle.redisOpsPerSecond,
    redisOpsPerSearch,
    redisOpsPerRoutingJob: redisExtra(posts) / rate(posts, posts.routingJobs),
    redisOpsPerRoutingJobSingle: redisExtra(single) / rate(single, single.routingJobs),
    storedPerMatch: drainedItems / (result.postsInjected * result.meanFanOut),
    rowsPerItem: Object.fromEntries(['feed_item_sources', 'outbox_jobs'].map((table) => [table, (result.rowsAfterDrain[table] ?? 0) / drainedItems])),
    xPostsPerPost: (result.rowsAfterDrain.x_posts ?? 0) / result.postsInjected,
    bytesPerRow: result.bytesPerRow,
    scannerCpuIdle: cpu(idle),
    scannerCpuPerSearch,
    scannerCpuPerBatch: (cpuExtra(single) - scannerCpuPerItem * i1) / b1,
    scannerCpuPerItem,
  };
}

export function loadUnits(): MeasuredUnits {
  return JSON.parse(readFileSync(UNITS_PATH, 'utf8')) as MeasuredUnits;
}

function meanFanOut(population: Population): number {
  const posts = postHits(population);
  return posts.reduce((sum, post) => sum + reachedAccounts(post), 0) / posts.length;
}

/** The model's figures for one scenario window: what `capacity-scenario.ts` should measure at this scale. */
export function predictWindow(units: Units, population: Population, seconds: number, postsPerSecond: number, fanOutMean: number, searchesMade?: number) {
  const queries = queriesPerCadence(population.sources, 512);
  // At the plans' intervals, or at the searches a run made when it fell behind them (its Redis and CPU then follow those).
  const searches = searchesMade ?? units.searchPerQueryCycle * idealSearches(queries, seconds);
  const itemsPerSecond = postsPerSecond * fanOutMean * units.storedPerMatch;
  const batches = feedBatches(population, postsPerSecond, ROUTE_ALERTS_MAX_ITEMS);
  return {
    searches,
    itemsPerSecond,
    feedBatches: batches.batchesPerSecond * seconds,
    routingJobs: batches.routingJobsPerSecond * seconds,
    redisOpsPerSecond: units.redisOpsIdle + units.redisOpsPerSearch * (searches / seconds) + units.redisOpsPerRoutingJob * batches.routingJobsPerSecond,
    feedItemSourcesRows: itemsPerSecond * seconds * (units.rowsPerItem.feed_item_sources ?? 0),
    feedItemsBytes: itemsPerSecond * seconds * (units.bytesPerRow.feed_items ?? 0),
    scannerCpu: units.scannerCpuIdle + units.scannerCpuPerSearch * (searches / seconds) + units.scannerCpuPerBatch * batches.batchesPerSecond + units.scannerCpuPerItem * itemsPerSecond,
  };
}

/**
 * Model against measurement for a scenario run: one line per figure, with the ratio; then the same model at the
 * searches the run made (what the other figures are once a run falls behind the plans' intervals).
 */
export function compareWithModel(result: ScenarioResult, population: Population, postsPerSecond: number): string[] {
  const units = deriveUnits(loadUnits());
  const predicted = predictWindow(units, population, result.posts.seconds, postsPerSecond, result.meanFanOut);
  const measured = {
    searches: result.posts.xCalls.search_recent ?? 0,
    // Items of the window's posts, counted once the last of them were scanned (the drain).
    itemsPerSecond: result.itemsAfterDrain / result.posts.seconds,
    // Like items, the batches and jobs of the window's posts, counted after the drain.
    feedBatches: result.batchesAfterDrain,
    routingJobs: result.routingJobsAfterDrain,
    redisOpsPerSecond: result.posts.redisOpsPerSecond,
    feedItemSourcesRows: result.rowsAfterDrain.feed_item_sources ?? 0,
    feedItemsBytes: result.bytesAfterDrain.feed_items ?? 0,
    scannerCpu: result.posts.cpuSecondsPerSecond.scanner ?? 0,
  };
  const atSearchesMade = predictWindow(units, population, result.posts.seconds, postsPerSecond, result.meanFanOut, measured.searches);
  const within = (ratio: number) => (Math.abs(ratio - 1) <= 0.25 ? 'yes' : 'NO');
  const lines = ['| figure (posts window) | model | measured | measured / model | within 25 % | model at the searches made | measured / that |', '|---|---:|---:|---:|---|---:|---:|'];
  for (const key of Object.keys(predicted) as (keyof typeof predicted)[]) {
    const ratio = measured[key] / predicted[key];
    const made = measured[key] / atSearchesMade[key];
    lines.push(`| ${key} | ${round(predicted[key], 4)} | ${round(measured[key], 4)} | ${ratio.toFixed(2)} | ${within(ratio)} | ${round(atSearchesMade[key], 4)} | ${made.toFixed(2)} |`);
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
  /** Feed batches (one feed transaction and one outbox row each) and the route-alerts jobs they carry. */
  feedTransactionsPerSecond: number;
  routingJobsPerSecond: number;
  /** At most one feed transaction per search and per item, whatever the posts: the clock's worst case. */
  feedTransactionsBound: number;
  rowsPerDay: Record<string, number>;
  bytesPerDay: Record<string, number>;
  replicas: Record<string, { load: string; computed: number }>;
  /** With the filtered stream (X_STREAM=true): the rules of one app on each X plan, and the searches left. */
  stream: Record<keyof typeof STREAM_LIMITS, StreamCoverage>;
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
  const batches = feedBatches(population, postsPerSecond, ROUTE_ALERTS_MAX_ITEMS);
  const trackedPosts = postsPerSecond * ASSUMPTIONS.engagementTrackedShare * ASSUMPTIONS.engagementWindowSeconds;
  const refreshSeconds = weightedRefreshSeconds(population);
  const postsLookupPer15Min = Math.ceil(trackedPosts / 100) * (900 / refreshSeconds);
  const searchesPerSecond = searchesPer15Min / 900;
  // Each search page is stored in at most one feed transaction, and a transaction stores at least one item.
  const feedTransactionsBound = Math.min(searchesPerSecond, itemsPerSecond);
  const feedTransactionsPerSecond = batches.batchesPerSecond;
  const day = 86_400;
  const rowsPerDay: Record<string, number> = {
    feed_items: itemsPerSecond * day,
    feed_item_sources: itemsPerSecond * day * (units.rowsPerItem.feed_item_sources ?? 0),
    x_posts: postsPerSecond * day * units.xPostsPerPost,
    outbox_jobs: feedTransactionsPerSecond * day,
  };
  const bytesPerDay = Object.fromEntries(Object.entries(rowsPerDay).map(([table, rows]) => [table, rows * (units.bytesPerRow[table] ?? 0)]));
  const u = ASSUMPTIONS.utilisation;
  const scannerCpu = units.scannerCpuIdle + units.scannerCpuPerSearch * searchesPerSecond + units.scannerCpuPerBatch * feedTransactionsPerSecond + units.scannerCpuPerItem * itemsPerSecond;
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
    redisOpsPerSecond: units.redisOpsIdle + units.redisOpsPerSearch * searchesPerSecond + units.redisOpsPerRoutingJob * batches.routingJobsPerSecond,
    feedTransactionsPerSecond, routingJobsPerSecond: batches.routingJobsPerSecond, feedTransactionsBound, rowsPerDay, bytesPerDay, replicas,
    stream: {
      payPerUse: streamCoverage(population, STREAM_LIMITS.payPerUse, units.searchPerQueryCycle),
      enterprise: streamCoverage(population, STREAM_LIMITS.enterprise, units.searchPerQueryCycle),
    },
  };
}

/** The smallest of the plans' account counts whose feed batches pass the clock's measured ceiling at the stated utilisation. */
export function clockBindsAt(plans: readonly Plan[]): number {
  const ceiling = BENCH_FIGURES.feedClockTransactionsPerSecond.value * ASSUMPTIONS.utilisation;
  return plans.find((plan) => plan.feedTransactionsPerSecond > ceiling)?.accounts ?? Infinity;
}

/**
 * Smallest account count (in steps of 5,000) at which feed transactions, at their bound of one per search and per
 * item, would pass the clock's measured ceiling at the stated utilisation, if searches ran at the plans' intervals
 * with 512-character queries.
 */
export function clockBoundBindsAt(units: Units): number {
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

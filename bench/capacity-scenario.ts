// The capacity scenario: the built apps as processes (x-sim, gateway, scanner, notifier, engagement poller, each
// one replica) on a Redis of the run's own, with `--scale` thousand accounts of the assumed plan mix
// (bench/capacity-population.ts) and a stream of posts, measured over a fixed window.
//
//   npm run build
//   flock /tmp/hw-bench.lock npx tsx --tsconfig bench/tsconfig.json bench/capacity-scenario.ts --scale 1 --record
//   flock /tmp/hw-bench.lock npx tsx --tsconfig bench/tsconfig.json bench/capacity-scenario.ts --scale 10
//
// Scale 1 is today's bench load: 1,000 accounts, the population of bench/scanner-upstream.ts. `--record` writes what
// it measured per unit of work to bench/capacity-units.json, the figures bench/capacity-model.ts reads. Any other
// scale prints the model's prediction for the same inputs beside what was measured, as ratios; `--from <file>`
// prints that comparison again for a run's saved output.
// Phases: idle (the processes before any account), warm-up (every source scanned once), "scan" (sources scanned at
// their cadences, no posts), "single" (posts each reaching one account, so a feed batch holds one item), "posts"
// (POSTS_PER_SECOND posts of the post stream, a batch holding many items), then a drain of the last posts. The
// single and posts phases differ in items per batch, which separates the scanner's work per batch from its work
// per item. Options: --seconds (posts phase, default 120; scan and single phases half of it).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { Suite } from '@hashwatch/e2e/harness/suite';
import { PrivateRedis } from '@hashwatch/testing';
import { machineDescription } from './bench-support';
import { compareWithModel, UNITS_PATH, type MeasuredUnits } from './capacity-model';
import { between, bytesPerRow, createSimUsers, injectPost, liftSimLimits, privateRedisClient, read, seedPopulation, type Window } from './capacity-measure';
import { buildPopulation, fanOut, postStream, queriesPerCadence, watchersOf, type Population } from './capacity-population';
import type { ScenarioResult } from './capacity-scenario-result';

export const POSTS_PER_SECOND = 1;
/** The single phase: posts each reaching one account (a tag only one Business account tracks, 10 s cadence). */
export const SINGLE_POSTS_PER_SECOND = 2;
const log = (line: string) => process.stdout.write(`${line}\n`);

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}

async function waitForWarmUp(pool: pg.Pool, sources: number): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const { rows } = await pool.query<{ scanned: string }>('SELECT count(*) FILTER (WHERE last_scan_at IS NOT NULL) AS scanned FROM source_cursors');
    const scanned = Number(rows[0]?.scanned ?? 0);
    if (scanned >= sources) return;
    if (Date.now() > deadline) throw new Error(`warm-up: ${scanned} of ${sources} sources scanned after 300 s`);
    await sleep(2000);
  }
}

async function postsPhase(suite: Suite, population: Population, seconds: number): Promise<{ posts: number; fanOutSum: number }> {
  const next = postStream(population, 7);
  const watchers = watchersOf(population);
  const start = Date.now();
  let posts = 0;
  let fanOutSum = 0;
  while (Date.now() - start < seconds * 1000) {
    const due = Math.floor(((Date.now() - start) / 1000) * POSTS_PER_SECOND) + 1;
    while (posts < due) {
      const post = next();
      fanOutSum += fanOut(population, post, watchers);
      await injectPost(suite.xsim.url, post, posts);
      posts += 1;
    }
    await sleep(50);
  }
  return { posts, fanOutSum };
}

/** Tags one account tracks and nobody else, that account on Business (scanned every 10 s): one item per post. */
function singleTags(population: Population): string[] {
  return [...population.trackersOfTag]
    .filter(([, trackers]) => trackers.length === 1 && population.accounts[trackers[0] as number]?.plan === 'business')
    .map(([tag]) => tag);
}

async function singlePhase(suite: Suite, tags: readonly string[], seconds: number): Promise<number> {
  if (tags.length === 0) throw new Error('no tag tracked by a single Business account');
  const start = Date.now();
  let posts = 0;
  while (Date.now() - start < seconds * 1000) {
    const due = Math.floor(((Date.now() - start) / 1000) * SINGLE_POSTS_PER_SECOND) + 1;
    while (posts < due) {
      await injectPost(suite.xsim.url, { author: `single${posts % 997}`, tags: [tags[posts % tags.length] as string] }, 1_000_000 + posts);
      posts += 1;
    }
    await sleep(50);
  }
  return posts;
}

function appPids(suite: Suite): Record<string, number[]> {
  const pids: Record<string, number[]> = {};
  for (const handle of suite.apps) (pids[handle.app] ??= []).push(handle.pid);
  return pids;
}

function notifierMetricsUrls(suite: Suite): string[] {
  return suite.apps.filter((handle) => handle.app === 'notifier').map((handle) => `http://127.0.0.1:${handle.port}/metrics`);
}

async function measureIdle(suite: Suite, redisUrl: string): Promise<Window> {
  const redis = privateRedisClient(redisUrl);
  const pids = appPids(suite);
  const urls = notifierMetricsUrls(suite);
  try {
    const start = await read(suite.pool, suite.xsim.url, redis, pids, urls);
    await sleep(20_000);
    return between(start, await read(suite.pool, suite.xsim.url, redis, pids, urls));
  } finally {
    redis.disconnect();
  }
}

async function measure(suite: Suite, redisUrl: string, population: Population, seconds: number): Promise<Omit<ScenarioResult, 'idle'>> {
  const redis = privateRedisClient(redisUrl);
  const pids = appPids(suite);
  const urls = notifierMetricsUrls(suite);
  const reading = () => read(suite.pool, suite.xsim.url, redis, pids, urls);
  try {
    await waitForWarmUp(suite.pool, population.sources.length);
    log('warm-up done: every source scanned once');
    await sleep(15_000);
    const scanStart = await reading();
    await sleep((seconds / 2) * 1000);
    const scanEnd = await reading();
    log('scan phase done');
    const singlePosts = await singlePhase(suite, singleTags(population), seconds / 2);
    // Their sources are scanned every 10 s: 20 s more stores the last of them.
    await sleep(20_000);
    const singleEnd = await reading();
    log('single phase done');
    const { posts, fanOutSum } = await postsPhase(suite, population, seconds);
    const postsEnd = await reading();
    // The last posts reach starter accounts one 60 s cadence later.
    await sleep(70_000);
    const drained = await reading();
    const postsWindow = between(singleEnd, postsEnd);
    const afterDrain = between(singleEnd, drained);
    return {
      accounts: population.accounts.length,
      sources: population.sources.length,
      queriesPerCadence: Object.fromEntries([...queriesPerCadence(population.sources, 512)].map(([cadence, queries]) => [String(cadence), queries])),
      scan: between(scanStart, scanEnd),
      single: between(scanEnd, singleEnd),
      singlePostsInjected: singlePosts,
      posts: postsWindow,
      postsInjected: posts,
      meanFanOut: fanOutSum / posts,
      itemsAfterDrain: afterDrain.rowsInserted.feed_items ?? 0,
      batchesAfterDrain: afterDrain.feedTransactions,
      routingJobsAfterDrain: afterDrain.routingJobs,
      rowsAfterDrain: afterDrain.rowsInserted,
      bytesAfterDrain: afterDrain.bytesGrown,
      bytesPerRow: await bytesPerRow(suite.pool),
    };
  } finally {
    redis.disconnect();
  }
}

/** `--from <file>`: the comparison again for a saved run's output (its JSON line), with the model as it is now. */
function compareSaved(file: string): void {
  const line = readFileSync(file, 'utf8').split('\n').find((text) => text.startsWith('{'));
  if (!line) throw new Error(`${file} holds no scenario result`);
  const result = JSON.parse(line) as ScenarioResult;
  for (const text of compareWithModel(result, buildPopulation(result.accounts), POSTS_PER_SECOND)) log(text);
}

async function main(): Promise<void> {
  const from = process.argv.indexOf('--from');
  if (from >= 0) {
    compareSaved(process.argv[from + 1] ?? '');
    return;
  }
  const scale = option('scale', 1);
  const seconds = option('seconds', 120);
  const scanners = option('scanners', 1);
  const population = buildPopulation(Math.round(scale * 1000));
  log(`machine: ${machineDescription()}`);
  log(`scale ${scale}: ${population.accounts.length} accounts, ${population.sources.length} sources, ${POSTS_PER_SECOND} post/s for ${seconds} s, ${scanners} scanner replica(s)`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-capacity-'));
  const redis = new PrivateRedis({ dir });
  await redis.start();
  let suite: Suite | undefined;
  try {
    // `--scanners`: scanner replicas, e.g. the model's deployment for the population (2 at 10,000 accounts).
    suite = await Suite.start({ redisUrl: redis.url, scanIntervalSeconds: 10, engagementIntervalSeconds: 60, replicas: { scanner: scanners }, env: { LOG_LEVEL: 'warn' } });
    await liftSimLimits(suite.xsim.url);
    // Idle: the five processes with no source to scan, their fixed Redis work (BullMQ's polling, schedulers).
    const idle = await measureIdle(suite, redis.url);
    await createSimUsers(suite.xsim.url, population.handles);
    await seedPopulation(suite.pool, population);
    // A bulk seed leaves the planner without statistics (a production database grows its tracks gradually and
    // autovacuum keeps them current); without them the scanner's source sync plans nested loops, 50 s at 10,000 accounts.
    await suite.pool.query('ANALYZE');
    log(`seeded; apps: ${suite.apps.map((app) => `${app.app} pid ${app.pid}`).join(', ')}`);
    const result = { ...(await measure(suite, redis.url, population, seconds)), idle };
    log(JSON.stringify(result));
    if (process.argv.includes('--record')) {
      const units: MeasuredUnits = { recordedAt: new Date().toISOString(), machine: machineDescription(), command: `bench/capacity-scenario.ts --scale ${scale} --seconds ${seconds} --record`, postsPerSecond: POSTS_PER_SECOND, result };
      writeFileSync(UNITS_PATH, `${JSON.stringify(units, null, 2)}\n`);
      log(`units written to ${UNITS_PATH}`);
    } else {
      for (const line of compareWithModel(result, population, POSTS_PER_SECOND)) log(line);
    }
  } finally {
    await suite?.stop();
    await redis.stop('SIGKILL').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

// Internal latency of the scanner at 1,000 items/s: from the moment X's answer carrying a post is received to
// the moment its feed item is visible to the posts query and the alert job carrying it (a route-alerts job of up
// to 500 items) is in the alert-routing queue.
//
//   npx tsx --tsconfig bench/tsconfig.json bench/scanner-latency.ts
//
// Needs PostgreSQL (DATABASE_URL; the role must be able to CREATE DATABASE) and Redis (REDIS_URL). Makes its
// own database and Redis prefix and removes them. Three processes, like production: this one runs only the
// scanner (its real BullMQ workers, ticking every second through job schedulers); a child plays X (the
// simulator) and publishes 500 posts/s in 20 ms steps, each matching two accounts (1,000 items/s); another
// child observes as a client would, running the `since` query of GET /v1/posts in a loop and listening to
// alert-routing's events. The scanner stamps when each answer arrived; the observer when each item became
// visible and the job carrying it was added (one machine, one clock). SCANNER_BENCH_SECONDS (default 30) sets the run;
// SCANNER_BENCH_MAX_PAGES the scanner's maxPagesPerBatch (default: the scanner's, 3).
// Goal: p99 < 150 ms.
//
// SCANNER_BENCH_WORKLOAD=busy offers 10,000 items/s instead: 200 posts/s, 50 accounts each tracking all 20 tags, so
// every post is 50 feed items. It reports the items stored per second past the warm-up against a raw
// `INSERT … SELECT FROM unnest` of the same rows into a copy of feed_items, in batches of the scanner's average size,
// measured after the run (goal: >= 0.6), and detection latency, from a post's publication to its items being
// visible (goal: p99 < the scan interval + 1 s = 2 s).
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedisConnection, listSchedulers, removeScheduler, type RedisClient } from '@hashwatch/queues';
import { createXClient } from '@hashwatch/x-api';
import { DEFAULT_APP_TOKEN } from '@hashwatch/x-simulator';
import { createScanner, reconcileScanSchedulers, startScannerWorkers, type Scanner } from '@hashwatch/scanner';
import { benchEnvironment, log, machineLine, percentile, rawInsertIntoCopy, seedAccounts, seedTracks, type BenchEnvironment } from './scanner-support';

const SECONDS = Number(process.env.SCANNER_BENCH_SECONDS ?? 30);
const WARMUP_SECONDS = 5;
const BUSY = process.env.SCANNER_BENCH_WORKLOAD === 'busy';
const POSTS_PER_SECOND = BUSY ? 200 : 500;
const STEP_MS = 20;
const TAGS = Array.from({ length: BUSY ? 20 : 10 }, (_, i) => `lat${String.fromCharCode(97 + i)}`);
const BUSY_ACCOUNTS = 50;
// Busy: the observer reads one account's feed (each post is an item of every account), and items stored per second
// come from the scanner's commits.
const OBSERVED_USER = BUSY ? 'usr_bench1' : undefined;

function child(script: string, env: Record<string, string> = {}): ChildProcess {
  return fork(path.join(__dirname, script), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env, TSX_TSCONFIG_PATH: path.join(__dirname, 'tsconfig.json') },
  });
}

/** The first message of `child` that `pick` accepts; rejects if the child exits first (with its exit code or signal). */
function message<T>(child: ChildProcess, pick: (message: Record<string, unknown>) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (received: Record<string, unknown>) => {
      const value = pick(received);
      if (value === undefined) return;
      child.off('exit', onExit);
      child.off('message', onMessage);
      resolve(value);
    };
    const onExit = (code: number | null, signal: string | null) => {
      child.off('message', onMessage);
      reject(new Error(`${child.spawnargs.at(-1) ?? 'child'} exited (${signal ?? code}) before answering`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** What the scanner recorded of each batch it stored: when the answer carrying each item arrived, and the phases after. */
interface Recording {
  /** feed item id -> when X's answer carrying its post was received */
  receivedAt: Map<string, number>;
  phases: { commit: number[]; relay: number[] };
  batches: { items: number; storeMs: number; relayMs: number; committedAt: number }[];
}

/** When the observer saw each item (and its post): visible to the `since` query, and added to alert-routing in a job. */
type Observed = {
  visible: [string, number, string][];
  enqueued: [string, number][];
};

/**
 * 20 accounts; tag k is tracked by accounts 2k and 2k+1, so every post is two feed items. Busy: 50 accounts each
 * tracking every tag, so every post is 50.
 */
async function seedWorkload(env: BenchEnvironment): Promise<void> {
  const options = { scanIntervalSeconds: 1, alertsLimit: 100_000_000 };
  if (BUSY) {
    const users = await seedAccounts(env.db, BUSY_ACCOUNTS, options);
    await seedTracks(env.db, users.flatMap((userId) => TAGS.map((hashtag) => ({ userId, hashtag }))));
    return;
  }
  const users = await seedAccounts(env.db, TAGS.length * 2, options);
  await seedTracks(env.db, users.map((userId, i) => ({ userId, hashtag: TAGS[Math.floor(i / 2)] as string })));
}

/** The scanner on the simulator child, recording every batch it stores. */
function recordingScanner(env: BenchEnvironment, simUrl: string, recording: Recording): Scanner {
  const x = createXClient({ baseUrl: simUrl, bearerToken: DEFAULT_APP_TOKEN, redis: env.producer, keyPrefix: env.prefix, logger: env.logger });
  return createScanner({
    pool: env.db.pool,
    x,
    queues: env.queues,
    logger: env.logger,
    maxQueryLength: 512,
    ...(process.env.SCANNER_BENCH_MAX_PAGES ? { maxPagesPerBatch: Number(process.env.SCANNER_BENCH_MAX_PAGES) } : {}),
    onBatchStored: ({ receivedAt: answers, stored, startedAt, committedAt, relayedAt }) => {
      recording.batches.push({ items: stored.inserted.length, storeMs: committedAt - startedAt, relayMs: relayedAt - committedAt, committedAt });
      for (const item of stored.inserted) {
        if (OBSERVED_USER !== undefined && item.userId !== OBSERVED_USER) continue;
        const at = answers.get(item.xPostId);
        if (at === undefined) continue;
        recording.receivedAt.set(item.id, at);
        recording.phases.commit.push(committedAt - at);
        recording.phases.relay.push(relayedAt - at);
      }
    },
  });
}

/** The scanner's workers run for SECONDS while the simulator publishes; returns what the observer saw and how many posts were published. */
async function runScanner(env: BenchEnvironment, scanner: Scanner, processes: { sim: ChildProcess; observer: ChildProcess; workerConnection: RedisClient }) {
  const { sim, observer, workerConnection } = processes;
  const workers = startScannerWorkers({ pool: env.db.pool, queues: env.queues, scanner, connection: workerConnection, prefix: env.prefix, logger: env.logger });
  await reconcileScanSchedulers(env.db.pool, env.queues);
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const started = Date.now();
  sim.send({ start: { postsPerSecond: POSTS_PER_SECOND, stepMs: STEP_MS, tags: TAGS } });
  await sleep(SECONDS * 1000);
  sim.send({ stop: true });
  const stopped = Date.now();
  const { injected, published } = await message(sim, (m) => (m.injected === undefined ? undefined : (m as { injected: number; published: [string, number][] })));
  await sleep(3000);
  observer.send({ stop: true });
  const observed = await message(observer, (m) => (m.visible ? (m as Observed) : undefined));
  await Promise.all(workers.map((worker) => worker.close()));
  for (const scheduler of await listSchedulers(env.queues, 'source-scans')) await removeScheduler(env.queues, 'source-scans', scheduler.id);
  return { started, stopped, injected, published: new Map(published), observed, loopDelay };
}

/**
 * Busy workload: items stored per second between the warm-up and the end of publishing (by when they became
 * visible), against the raw insert of the same rows; and detection latency, publication to visible.
 */
async function reportIngest(env: BenchEnvironment, recording: Recording, run: Awaited<ReturnType<typeof runScanner>>): Promise<void> {
  const warmupEnd = run.started + WARMUP_SECONDS * 1000;
  const steady = recording.batches.filter((batch) => batch.committedAt > warmupEnd && batch.committedAt <= run.stopped).reduce((sum, batch) => sum + batch.items, 0);
  const storedPerSecond = steady / ((run.stopped - warmupEnd) / 1000);
  const detection: number[] = [];
  for (const [, at, postId] of run.observed.visible) {
    const publishedAt = run.published.get(postId);
    if (publishedAt !== undefined && publishedAt > warmupEnd) detection.push(at - publishedAt);
  }
  const batchSize = Math.max(1, Math.round(recording.batches.reduce((sum, b) => sum + b.items, 0) / Math.max(1, recording.batches.length)));
  const raw = await rawInsertIntoCopy(env.db, batchSize);
  const rawPerSecond = raw.rows / raw.seconds;
  log('');
  log(`offered: ${POSTS_PER_SECOND} posts/s x ${BUSY_ACCOUNTS} accounts = ${POSTS_PER_SECOND * BUSY_ACCOUNTS} items/s`);
  log(`| measure | value |`);
  log('|---|---|');
  log(`| items stored per second, committed ${WARMUP_SECONDS} s to the end of publishing (scanner) | ${storedPerSecond.toFixed(0)} |`);
  log(`| raw INSERT … SELECT FROM unnest of the same ${raw.rows} rows into a copy of feed_items, ${batchSize} a transaction (baseline) | ${rawPerSecond.toFixed(0)} |`);
  log(`| scanner / raw (goal >= 0.6) | ${(storedPerSecond / rawPerSecond).toFixed(2)} |`);
  log('');
  log('| from publication to ... (ms) | p50 | p95 | p99 | max |');
  log('|---|---|---|---|---|');
  log(line(`visible in ${OBSERVED_USER}'s feed to the posts \`since\` query (detection; goal p99 < 2,000)`, detection));
}

/** Each item's latency past the warm-up, from the answer received to visible, to enqueued, and to both; and how many were not observed. */
function latencies(receivedAt: Map<string, number>, visibleAt: Map<string, number>, enqueuedAt: Map<string, number>, warmupEnd: number) {
  const visible: number[] = [];
  const enqueued: number[] = [];
  const both: number[] = [];
  let missing = 0;
  for (const [id, at] of receivedAt) {
    if (at < warmupEnd) continue;
    const seen = visibleAt.get(id);
    const queued = enqueuedAt.get(id);
    if (seen === undefined || queued === undefined) {
      missing += 1;
      continue;
    }
    visible.push(seen - at);
    enqueued.push(queued - at);
    both.push(Math.max(seen, queued) - at);
  }
  return { visible, enqueued, both, missing };
}

/** The same, per 5 s window, to show whether latency drifts as tables grow and the outbox churns. */
function latencyPerWindow(receivedAt: Map<string, number>, visibleAt: Map<string, number>, enqueuedAt: Map<string, number>, started: number): string[] {
  const windows = new Map<number, number[]>();
  for (const [id, at] of receivedAt) {
    const seen = visibleAt.get(id);
    const queued = enqueuedAt.get(id);
    if (seen === undefined || queued === undefined) continue;
    const key = Math.floor((at - started) / 5000);
    const values = windows.get(key) ?? [];
    values.push(Math.max(seen, queued) - at);
    windows.set(key, values);
  }
  return [...windows].sort((a, b) => a[0] - b[0]).map(([key, values]) => {
    const sorted = values.sort((a, b) => a - b);
    return `${key * 5}-${key * 5 + 5}s p50 ${percentile(sorted, 50).toFixed(0)} p99 ${percentile(sorted, 99).toFixed(0)}`;
  });
}

/** A table row: the p50, p95, p99 and max of these latencies. */
function line(name: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `| ${name} | ${percentile(sorted, 50).toFixed(0)} | ${percentile(sorted, 95).toFixed(0)} | ${percentile(sorted, 99).toFixed(0)} | ${(sorted.at(-1) ?? Number.NaN).toFixed(0)} |`;
}

/** The drift per window, the scanner's event-loop delay and batches, the run's totals and the latency table. */
async function report(env: BenchEnvironment, recording: Recording, run: Awaited<ReturnType<typeof runScanner>>): Promise<void> {
  const { batches, phases, receivedAt } = recording;
  const visibleAt = new Map(run.observed.visible.map(([id, at]) => [id, at]));
  const enqueuedAt = new Map(run.observed.enqueued);
  const { visible, enqueued, both, missing } = latencies(receivedAt, visibleAt, enqueuedAt, run.started + WARMUP_SECONDS * 1000);
  log(`per window (both): ${latencyPerWindow(receivedAt, visibleAt, enqueuedAt, run.started).join(' | ')}`);
  const average = (pick: (b: Recording['batches'][number]) => number) => (batches.reduce((sum, b) => sum + pick(b), 0) / Math.max(1, batches.length)).toFixed(0);
  const { loopDelay } = run;
  loopDelay.disable();
  log(`scanner event-loop delay: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms`);
  log(`batches: ${batches.length}, on average ${average((b) => b.items)} items, ${average((b) => b.storeMs)} ms in the transaction, ${average((b) => b.relayMs)} ms more to relay`);
  const { rows } = await env.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM feed_items');
  log(`ran ${SECONDS} s: ${run.injected} posts published, ${rows[0]?.n} items stored (${((rows[0]?.n ?? 0) / SECONDS).toFixed(0)} items/s), ${both.length} measured after a ${WARMUP_SECONDS} s warm-up, ${missing} not observed`);
  log('');
  log('| from the upstream answer received to ... (ms) | p50 | p95 | p99 | max |');
  log('|---|---|---|---|---|');
  log(line('transaction committed (scanner)', phases.commit));
  log(line('outbox relayed (scanner)', phases.relay));
  log(line('visible to the posts `since` query (observer)', visible));
  log(line('alert job carrying it added to alert-routing (observer)', enqueued));
  log(line('both: visible and enqueued (the goal: p99 < 150)', both));
}

async function main(): Promise<void> {
  log(machineLine());
  const env = await benchEnvironment('latency');
  const workerConnection = createRedisConnection(env.redisUrl, { role: 'worker' });
  const sim = child('scanner-latency-sim.ts');
  const observer = child('scanner-latency-observer.ts', {
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    QUEUE_PREFIX: env.prefix,
    ...(OBSERVED_USER ? { OBSERVE_USER: OBSERVED_USER } : {}),
  });
  try {
    const simUrl = await message(sim, (m) => m.url as string | undefined);
    await message(observer, (m) => m.ready as boolean | undefined);
    await seedWorkload(env);
    const recording: Recording = { receivedAt: new Map(), phases: { commit: [], relay: [] }, batches: [] };
    const scanner = recordingScanner(env, simUrl, recording);
    const run = await runScanner(env, scanner, { sim, observer, workerConnection });
    await report(env, recording, run);
    if (BUSY) await reportIngest(env, recording, run);
  } finally {
    for (const process of [sim, observer]) if (process.exitCode === null) process.kill();
    workerConnection.disconnect();
    await env.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);

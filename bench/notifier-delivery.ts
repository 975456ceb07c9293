// The notifier under load: throughput against a bare axios sender, latency at 500 alerts/s, isolation.
//
//   npx tsx --tsconfig bench/tsconfig.json bench/notifier-delivery.ts
//
// Needs PostgreSQL (DATABASE_URL; the role must be able to CREATE DATABASE) and Redis (REDIS_URL). Makes its
// own database and Redis prefix and removes them. Two processes on this machine, as in production: the notifier
// (routing, drains, sweeper) runs alone in a child (bench/notifier-process.ts), a separate app as it is deployed;
// this process runs the sink it delivers to, the bare sender, and the load generator that stores feed items as
// the feed writers do: the items and the route-alerts jobs carrying them (up to 500 items a job, one outbox row
// per job) in one transaction, relayed after commit.
// NOTIFIER_BENCH_SCALE=<0..1> shrinks every phase for a quick run. NOTIFIER_BENCH_PROFILE=<dir> runs the
// notifier child with --cpu-prof, writing its V8 CPU profile (every phase) into <dir>.
// NOTIFIER_BENCH_PHASES=<a,b,…> runs only the named phases (throughput, drain, latency, isolation, receivers,
// burst), e.g. `burst` alone for a CPU profile of it.
// Goals: >= 50% of the bare sender's alerts/s; p99 stored -> received < 200 ms at 500 alerts/s; with 10,000
// alerts queued for one paced channel, another account's alert arrives within 1 s. At the notifier's defaults (json
// receivers paced by their own answers): 20 json receivers taking 25 alerts/s each (500/s for 20 s), p99 stored ->
// received < 1 s; bursts of 2,000 alerts to each of 5 receivers delivered at >= 50% of the bare sender's rate.
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import axios from 'axios';
import { Redis } from 'ioredis';
import { createAccount } from '@hashwatch/accounts';
import { createDatabase, migrate, seedPlans, transaction, type Database } from '@hashwatch/db';
import { insertFeedItems, type NewFeedItem } from '@hashwatch/feed';
import { relayOutbox, writeOutbox } from '@hashwatch/outbox';
import { createQueues, createRedisConnection, routeAlertsJobs, type Queues } from '@hashwatch/queues';
import { baseDatabaseUrl, databaseUrlFor, deletePrefixKeys } from '@hashwatch/testing';
import type { NotifierOptions } from '@hashwatch/notifier';
import { admin, machineDescription, percentile } from './bench-support';
import { loadNotifier, startSink, untilArrived, type NotifierChild, type Sink } from './notifier-child';
import { addWebhook, post } from './notifier-support';

const SCALE = Number(process.env.NOTIFIER_BENCH_SCALE ?? 1);
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stores items and the route-alerts jobs carrying them (one outbox row per job, as the engagement poller writes them) in one transaction, then relays at once. */
async function store(db: Database, queues: Queues, items: NewFeedItem[]): Promise<{ id: string; detectedAt: Date }[]> {
  const inserted = await transaction(db.pool, async (client) => {
    const result = await insertFeedItems(client, items);
    await writeOutbox(client, routeAlertsJobs(result.inserted.map((item) => ({ feedItemId: item.id, userId: item.userId }))));
    return result.inserted;
  });
  await relayOutbox(db.pool, queues);
  return inserted.map((item) => ({ id: item.id, detectedAt: item.detectedAt }));
}

/** What every phase works with: the database, the queues, the sink and the notifier child, and how to remove them. */
interface Bench {
  db: Database;
  queues: Queues;
  sink: Sink;
  notifier: NotifierChild;
  close(): Promise<void>;
}

type Account = { userId: string };

/** One message per alert (no digests on the chat channel of the isolation phase); json receivers as by default. */
const ONE_MESSAGE_PER_ALERT: Partial<NotifierOptions> = { digestThreshold: 1_000_000 };

/** The notifier before json receivers had a window: one send at a time, at most 10 a second per receiver. */
const FIXED_JSON_PACE: Partial<NotifierOptions> = {
  pace: { json: [{ limit: 10, windowMs: 1_000 }], jsonWindow: { initial: 1, max: 1, slowFactor: 2, slowMarginMs: 50, idleMs: 600_000, baseLifetimeMs: 300_000 } } as never,
};

const PHASES = new Set((process.env.NOTIFIER_BENCH_PHASES ?? 'throughput,drain,latency,isolation,receivers,burst').split(','));

/** The notifier's options in every phase, with the phase's own on top. */
function notifierOptions(options: Partial<NotifierOptions>): Partial<NotifierOptions> {
  return {
    sendTimeoutMs: 10_000,
    sweepIntervalMs: 1_000,
    relayIntervalMs: 1_000,
    backoffBaseMs: 5_000,
    maxBackoffMs: 3_600_000,
    failurePauseMs: 2_000,
    // 1 s drain leases, as in every run docs/BENCHMARKS.md records (a live drain renews its lease in the background).
    leaseMs: 1_000,
    ...options,
  };
}

/** Stops the running notifier, if any, and starts one with these options. */
async function restartNotifier(notifier: NotifierChild, options: Partial<NotifierOptions>): Promise<void> {
  await notifier.stop();
  await notifier.start(notifierOptions(options));
}

/** The run's database, Redis connections, queues, sink and notifier child (loaded, not started). */
async function openBench(dbName: string, prefix: string, redisUrl: string): Promise<Bench> {
  await admin((client) => client.query(`CREATE DATABASE "${dbName}"`));
  const db = createDatabase(databaseUrlFor(dbName), { max: 20, applicationName: 'hashwatch-bench' });
  const cleanup = new Redis(redisUrl);
  const producer = createRedisConnection(redisUrl, { role: 'producer' });
  await new Promise<void>((resolve) => (producer.status === 'ready' ? resolve() : producer.once('ready', () => resolve())));
  const queues = createQueues({ connection: producer, prefix });
  const sink = await startSink();
  // One child for every phase, as one long-running replica: its code stays compiled and warm across phases, as it
  // was when the notifier ran in this process. Each phase starts a notifier in it and stops it after.
  const notifier = await loadNotifier({ databaseUrl: databaseUrlFor(dbName), redisUrl, prefix });
  return {
    db,
    queues,
    sink,
    notifier,
    async close() {
      await notifier.exit().catch(() => notifier.process.kill('SIGKILL'));
      await queues.close();
      producer.disconnect();
      await sink.close();
      await deletePrefixKeys(cleanup, prefix);
      cleanup.disconnect();
      await db.close();
      await admin((client) => client.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
    },
  };
}

/** Migrates the database and makes 100 accounts, each with a webhook of its own on the sink. */
async function seedAccounts(bench: Bench): Promise<Account[]> {
  await migrate(bench.db.pool);
  await seedPlans(bench.db.pool);
  const accounts: Account[] = [];
  for (let i = 0; i < 100; i += 1) {
    const { accountId } = await createAccount(bench.db.prisma, { email: `bench${i}@example.com`, planId: 'business' });
    await addWebhook(bench.db.pool, accountId, { url: `${bench.sink.url}/hook/${i}` });
    accounts.push({ userId: accountId });
  }
  return accounts;
}

/** Stores `n` items over the accounts, 100 at a time (one per account); returns their ids. */
async function storeOverAccounts(bench: Bench, accounts: Account[], n: number): Promise<string[]> {
  const stored: string[] = [];
  for (let batch = 0; batch < n / 100; batch += 1) {
    stored.push(...(await store(bench.db, bench.queues, accounts.map(({ userId }) => post(userId)))).map((item) => item.id));
  }
  return stored;
}

/** Seconds from `started` to the last of these items' arrival at the sink. */
function secondsToLastArrival(sink: Sink, ids: string[], started: number): number {
  return (Math.max(...ids.map((id) => sink.arrivals.get(id) ?? Date.now())) - started) / 1000;
}

/** Baseline: `n` alerts posted to the sink by a bare axios keep-alive sender, 50 in flight; returns its alerts/s. */
async function measureBareSender(sink: Sink, n: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 50 });
  const client = axios.create({ httpAgent: agent, validateStatus: () => true });
  const sample = JSON.stringify({ type: 'post', post: { id: 'post_x', type: 'hashtag', source: '#btc', author: '@alice', author_name: 'Alice', text: 'post about #btc', url: 'https://x.com/alice/status/1' }, text: '#btc @alice' });
  let next = 0;
  const bareStarted = Date.now();
  await Promise.all(Array.from({ length: 50 }, async () => {
    while (next < n) {
      next += 1;
      await client.post(`${sink.url}/bare`, sample, { headers: { 'content-type': 'application/json', 'webhook-id': `msg_${next}` } });
    }
  }));
  const bareRate = n / ((Date.now() - bareStarted) / 1000);
  agent.destroy();
  log(`throughput: bare axios keep-alive sender (50 in flight): ${bareRate.toFixed(0)} alerts/s`);
  return bareRate;
}

/** Throughput: `n` alerts over 100 channels, end to end, stored while the notifier delivers them. */
async function measureThroughput(bench: Bench, accounts: Account[], n: number, bareRate: number): Promise<void> {
  await restartNotifier(bench.notifier, ONE_MESSAGE_PER_ALERT);
  const started = Date.now();
  const stored = await storeOverAccounts(bench, accounts, n);
  const storedAt = Date.now();
  const ok = await untilArrived(bench.sink, stored, 120_000);
  const ourRate = stored.length / secondsToLastArrival(bench.sink, stored, started);
  log(`throughput: notifier, ${stored.length} alerts over 100 channels, stored in ${((storedAt - started) / 1000).toFixed(1)} s: ${ourRate.toFixed(0)} alerts/s end to end${ok ? '' : ' (NOT ALL ARRIVED)'}`);
  log(`throughput: ratio ${(ourRate / bareRate * 100).toFixed(0)}% of the bare sender (goal >= 50%)`);
}

/** Throughput of the notifier alone: `n` alerts stored while no notifier runs, then one starts and delivers them all. */
async function measureDrain(bench: Bench, accounts: Account[], n: number, bareRate: number): Promise<void> {
  // The same as measureThroughput without the generator competing for the cores.
  await bench.notifier.stop();
  const queuedItems = await storeOverAccounts(bench, accounts, n);
  const drainStarted = Date.now();
  await bench.notifier.start(notifierOptions(ONE_MESSAGE_PER_ALERT));
  const drained = await untilArrived(bench.sink, queuedItems, 120_000);
  const drainRate = queuedItems.length / secondsToLastArrival(bench.sink, queuedItems, drainStarted);
  log(`throughput: notifier alone, ${queuedItems.length} alerts stored beforehand (route jobs queued), from start to the last arrival: ${drainRate.toFixed(0)} alerts/s${drained ? '' : ' (NOT ALL ARRIVED)'}, ${(drainRate / bareRate * 100).toFixed(0)}% of the bare sender`);
}

type StoredItem = { id: string; detectedAt: Date };

/** Stores 50 items every 100 ms round-robin over `accounts` (500 alerts/s): `warmupTicks` ticks of warm-up, then `seconds` measured. */
async function generateAt500PerSecond(bench: Bench, accounts: Account[], warmupTicks: number, seconds: number) {
  const warmupItems: StoredItem[] = [];
  const latencyItems: StoredItem[] = [];
  const tickStart = Date.now();
  for (let tick = 0; tick < warmupTicks + seconds * 10; tick += 1) {
    const due = tickStart + tick * 100;
    if (Date.now() < due) await sleep(due - Date.now());
    const items = Array.from({ length: 50 }, (_, i) => post(accounts[(tick * 50 + i) % accounts.length]!.userId));
    (tick < warmupTicks ? warmupItems : latencyItems).push(...(await store(bench.db, bench.queues, items)));
  }
  const measuredStart = tickStart + warmupTicks * 100;
  const generated = latencyItems.length / ((Date.now() - measuredStart) / 1000);
  return { warmupItems, latencyItems, measuredStart, generated };
}

/** The p99 latency of each second of the run, to tell a stall from a steady tail. */
function p99PerSecond(sink: Sink, items: StoredItem[], measuredStart: number): string {
  const perSecond = new Map<number, number[]>();
  for (const item of items) {
    const second = Math.floor((item.detectedAt.getTime() - measuredStart) / 1000);
    perSecond.set(second, [...(perSecond.get(second) ?? []), (sink.arrivals.get(item.id) ?? Infinity) - item.detectedAt.getTime()]);
  }
  return [...perSecond].sort((a, b) => a[0] - b[0]).map(([second, values]) => `${second}s ${percentile(values.sort((a, b) => a - b), 99)}`).join(' | ');
}

/** Latency at 500 alerts/s: 50 items every 100 ms over 100 accounts (5/s each), default pacing and digests. */
async function measureLatency(bench: Bench, accounts: Account[]): Promise<void> {
  // A freshly started notifier opens its connections to the sink (one per channel) and Redis in its first
  // second: the first 2 s are a warm-up at the same rate, measured apart; a long-running replica is past it.
  await restartNotifier(bench.notifier, {});
  const seconds = Math.max(2, Math.round(10 * SCALE));
  const { warmupItems, latencyItems, measuredStart, generated } = await generateAt500PerSecond(bench, accounts, 20, seconds);
  const arrived = await untilArrived(bench.sink, [...warmupItems, ...latencyItems].map((item) => item.id), 60_000);
  const latencyOf = (item: StoredItem) => (bench.sink.arrivals.get(item.id) ?? Infinity) - item.detectedAt.getTime();
  const latencies = latencyItems.map(latencyOf).sort((a, b) => a - b);
  const warmup = warmupItems.map(latencyOf).sort((a, b) => a - b);
  log(`latency per second (p99 ms): ${p99PerSecond(bench.sink, latencyItems, measuredStart)}`);
  log(`latency: warm-up, first 2 s after the notifier started (${warmupItems.length} alerts): p50 ${percentile(warmup, 50)} ms, p99 ${percentile(warmup, 99)} ms, max ${warmup.at(-1)} ms (not in the measure below)`);
  log(`latency: ${latencyItems.length} alerts at ${generated.toFixed(0)} alerts/s, stored (detected_at) -> received: p50 ${percentile(latencies, 50)} ms, p90 ${percentile(latencies, 90)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms${arrived ? '' : ' (NOT ALL ARRIVED)'} (goal p99 < 200 ms)`);
}

/** Queues `queued` alerts for one new account's Slack-paced channel (1 message/s), waits until all are routed; returns how many are pending. */
async function floodPacedChannel(bench: Bench, queued: number): Promise<number> {
  const { accountId: busy } = await createAccount(bench.db.prisma, { email: 'busy@example.com', planId: 'business' });
  const busyChannel = await addWebhook(bench.db.pool, busy, { url: `${bench.sink.url}/busy`, format: 'slack' });
  for (let batch = 0; batch < queued / 500; batch += 1) {
    await store(bench.db, bench.queues, Array.from({ length: 500 }, () => post(busy)));
  }
  const routedBy = Date.now() + 120_000;
  while (Date.now() < routedBy) {
    const { rows } = await bench.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE channel_id = $1`, [busyChannel.id]);
    if ((rows[0]?.n ?? 0) >= queued) break;
    await sleep(200);
  }
  const { rows: pendingRows } = await bench.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE channel_id = $1 AND status = 'pending'`, [busyChannel.id]);
  return pendingRows[0]?.n ?? 0;
}

/** Isolation: 10,000 alerts queued for one paced channel, then how long another account's alerts take to arrive. */
async function measureIsolation(bench: Bench, accounts: Account[]): Promise<void> {
  const pending = await floodPacedChannel(bench, Math.round(10_000 * SCALE));
  const isolation: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const [item] = await store(bench.db, bench.queues, [post(accounts[i]!.userId)]);
    await untilArrived(bench.sink, [item!.id], 5_000);
    isolation.push((bench.sink.arrivals.get(item!.id) ?? Infinity) - item!.detectedAt.getTime());
    await sleep(300);
  }
  isolation.sort((a, b) => a - b);
  log(`isolation: ${pending} alerts pending for one paced channel; another account's alert stored -> received: p50 ${percentile(isolation, 50)} ms, max ${isolation.at(-1)} ms over ${isolation.length} alerts (goal < 1000 ms)`);
}

/**
 * json receivers at machine speed: 20 accounts, one json receiver each on the sink, 500 alerts/s for 20 s (25 a
 * second per receiver), stored -> received; with the notifier's defaults and with the fixed pace it replaced.
 */
async function measureReceivers(bench: Bench, accounts: Account[], label: string, options: Partial<NotifierOptions>): Promise<void> {
  await restartNotifier(bench.notifier, options);
  const receivers = accounts.slice(0, 20);
  const seconds = Math.max(2, Math.round(20 * SCALE));
  const { warmupItems, latencyItems, generated } = await generateAt500PerSecond(bench, receivers, 0, seconds);
  const all = [...warmupItems, ...latencyItems];
  const arrived = await untilArrived(bench.sink, all.map((item) => item.id), 180_000);
  const latencies = all.map((item) => (bench.sink.arrivals.get(item.id) ?? Infinity) - item.detectedAt.getTime()).sort((a, b) => a - b);
  const lastArrival = Math.max(...all.map((item) => bench.sink.arrivals.get(item.id) ?? Date.now()));
  const lastStored = Math.max(...all.map((item) => item.detectedAt.getTime()));
  log(`receivers (${label}): ${all.length} alerts to 20 json receivers at ${generated.toFixed(0)} alerts/s (${(generated / 20).toFixed(0)}/s each) for ${seconds} s, stored -> received: p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms; last alert ${((lastArrival - lastStored) / 1000).toFixed(1)} s after the last stored${arrived ? '' : ' (NOT ALL ARRIVED)'} (goal p99 < 1 s)`);
}

/** Bursts: 2,000 alerts for each of 5 accounts with one json receiver each, stored as fast as the generator goes, end to end. */
async function measureBurst(bench: Bench, accounts: Account[], bareRate: number): Promise<void> {
  await restartNotifier(bench.notifier, {});
  const receivers = accounts.slice(20, 25);
  const perReceiver = Math.round(2_000 * SCALE);
  const started = Date.now();
  const stored: string[] = [];
  for (let batch = 0; batch < perReceiver / 100; batch += 1) {
    const items = receivers.flatMap(({ userId }) => Array.from({ length: 100 }, () => post(userId)));
    stored.push(...(await store(bench.db, bench.queues, items)).map((item) => item.id));
  }
  const storedAt = Date.now();
  const ok = await untilArrived(bench.sink, stored, 180_000);
  const rate = stored.length / secondsToLastArrival(bench.sink, stored, started);
  log(`burst: ${stored.length} alerts, ${perReceiver} to each of 5 json receivers, stored in ${((storedAt - started) / 1000).toFixed(1)} s: ${rate.toFixed(0)} alerts/s end to end${ok ? '' : ' (NOT ALL ARRIVED)'}, ratio ${(rate / bareRate).toFixed(2)} of the bare sender (goal >= 0.5)`);
}

async function main(): Promise<void> {
  const dbName = `hw_bench_notifier_${randomBytes(4).toString('hex')}`;
  const prefix = `hwb${randomBytes(4).toString('hex')}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  log(`machine: ${machineDescription()}`);
  log(`database ${dbName} on ${new URL(baseDatabaseUrl()).host}, redis prefix ${prefix}`);
  const bench = await openBench(dbName, prefix, redisUrl);
  try {
    const accounts = await seedAccounts(bench);
    const n = Math.round(5_000 * SCALE);
    const bareRate = await measureBareSender(bench.sink, n);
    if (PHASES.has('throughput')) await measureThroughput(bench, accounts, n, bareRate);
    if (PHASES.has('drain')) await measureDrain(bench, accounts, n, bareRate);
    if (PHASES.has('latency')) await measureLatency(bench, accounts);
    if (PHASES.has('receivers')) {
      await measureReceivers(bench, accounts, 'fixed pace of 10/s, one at a time, as before', FIXED_JSON_PACE);
      await measureReceivers(bench, accounts, 'adaptive window, the default', {});
    }
    if (PHASES.has('burst')) await measureBurst(bench, accounts, bareRate);
    // Last: it leaves 10,000 alerts queued for a Slack-paced channel.
    if (PHASES.has('isolation')) await measureIsolation(bench, accounts);
  } finally {
    await bench.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);

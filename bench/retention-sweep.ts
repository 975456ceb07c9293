// The retention sweep against GET /v1/posts: the feed's latency under steady load, first alone (baseline), then
// while the sweep deletes 1,000,000 expired feed items (and their posts) in its batches, until all are gone.
//
//   npx tsx --tsconfig bench/tsconfig.json bench/retention-sweep.ts
//
// Needs PostgreSQL (DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/hashwatch; the role must be able
// to CREATE DATABASE) and Redis (REDIS_URL). Makes its own database and Redis prefix and removes them.
// RETENTION_BENCH_ITEMS=<n> expired items (default 1,000,000), RETENTION_BENCH_LIVE=<n> live items of the
// account under load (default 200,000), RETENTION_BENCH_RATE=<n> requests per second of the steady load
// (default 200, over 10 connections), RETENTION_BENCH_BATCH / RETENTION_BENCH_PAUSE_MS the sweep's batch size
// and pause (default: the scanner's, DEFAULT_SWEEP_LIMITS).
// Goal: p99 of GET /v1/posts during the sweep <= 30 ms.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAccount } from '@hashwatch/accounts';
import type { Database } from '@hashwatch/db';
import { DEFAULT_SWEEP_LIMITS, sweepRetention, type SweepSummary } from '@hashwatch/scanner';
import { generateSecretsKey } from '@hashwatch/secrets';
import { machineDescription, percentile } from './bench-support';
import { openScratch } from './bench-scratch';
import { startPostsServer } from './posts-server-process';

const EXPIRED = Number(process.env.RETENTION_BENCH_ITEMS ?? 1_000_000);
const LIVE = Number(process.env.RETENTION_BENCH_LIVE ?? 200_000);
const RATE = Number(process.env.RETENTION_BENCH_RATE ?? 200);
const CONNECTIONS = 10;
const EXPIRED_ACCOUNTS = 20;
const BASELINE_SECONDS = 30;
const LIMITS = {
  batchSize: Number(process.env.RETENTION_BENCH_BATCH ?? DEFAULT_SWEEP_LIMITS.batchSize),
  pauseMs: Number(process.env.RETENTION_BENCH_PAUSE_MS ?? DEFAULT_SWEEP_LIMITS.pauseMs),
};

const log = (line: string) => process.stdout.write(`${line}\n`);

/** `count` items of one account detected `ageDays` ago (1 ms apart), each with its own post, in one statement each. */
async function fill(db: Database, userId: string, salt: string, count: number, ageDays: number): Promise<void> {
  const start = new Date(Date.now() - ageDays * 86_400_000);
  await db.pool.query(
    `INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at, first_seen_at)
     SELECT $1 || g, (g % 50000)::text, 'user' || (g % 50000), 'User ' || (g % 50000), 'Post ' || g || ' #btc $eth', $3, $3
       FROM generate_series(1, $2::int) AS g`,
    [salt, count, start],
  );
  await db.pool.query(
    `INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, account, sources, x_post_id, author_id, author, author_name,
                             text, url, posted_at, detected_at)
     SELECT 'post_' || $2 || '_' || g, $1, 'x:' || $2 || g,
            (CASE WHEN g % 20 = 1 THEN 'account' ELSE 'hashtag' END)::feed_item_type,
            CASE WHEN g % 20 = 1 THEN NULL ELSE (ARRAY['btc', 'eth', 'sol'])[1 + g % 3] END,
            CASE WHEN g % 20 = 1 THEN 'alice' END,
            CASE WHEN g % 20 = 1 THEN ARRAY['@alice'] WHEN g % 7 = 0 THEN ARRAY['#btc', '@alice'] ELSE ARRAY['#btc'] END,
            $2 || g, (g % 50000)::text, '@user' || (g % 50000), 'User ' || (g % 50000),
            'Post ' || g || ': ' || repeat('markets are moving today, ', 5) || '#btc $eth',
            'https://x.com/user' || (g % 50000) || '/status/' || $2 || g,
            $4::timestamptz + g * interval '1 millisecond', $4::timestamptz + g * interval '1 millisecond'
       FROM generate_series(1, $3::int) AS g`,
    [userId, salt, count, start],
  );
}

/** Latencies (ms) of GET `path` at about `rate` requests per second over CONNECTIONS keep-alive loops, until `stop` resolves. */
async function steadyLoad(port: number, path: string, headers: Record<string, string>, rate: number, stop: Promise<unknown>) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  let failures = 0;
  let stopped = false;
  void stop.then(() => (stopped = true));
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const started = process.hrtime.bigint();
      const request = http.get({ host: '127.0.0.1', port, path, headers, agent }, (response) => {
        response.resume();
        response.on('end', () => (response.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(String(response.statusCode)))));
      });
      request.on('error', reject);
    });
  const everyMs = (1000 * CONNECTIONS) / rate;
  const loop = async (offset: number) => {
    await sleep(offset);
    let next = Date.now();
    while (!stopped) {
      try {
        latencies.push(await once());
      } catch {
        failures += 1;
      }
      next += everyMs;
      await sleep(Math.max(0, next - Date.now()));
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, index) => loop((index * everyMs) / CONNECTIONS)));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, failures, p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), max: latencies.at(-1) ?? Number.NaN };
}

type Load = Awaited<ReturnType<typeof steadyLoad>>;
const describe = (load: Load, seconds: number) =>
  `${load.requests} requests in ${seconds.toFixed(0)} s (${(load.requests / seconds).toFixed(0)} req/s), p50 ${load.p50.toFixed(1)} ms, ` +
  `p95 ${load.p95.toFixed(1)} ms, p99 ${load.p99.toFixed(1)} ms, max ${load.max.toFixed(1)} ms, failures ${load.failures}`;

/** Sweeps until a run finds nothing left (each run bounded by its budget, as the scheduled job's are). */
async function sweepAll(db: Database): Promise<SweepSummary & { runs: number }> {
  const total = { items: 0, itemSources: 0, posts: 0, engagementStates: 0, pendingAccounts: 0, notices: 0, batches: 0, contended: 0, budgetSpent: false, durationMs: 0, runs: 0 };
  for (;;) {
    const run = await sweepRetention(db.pool, { limits: LIMITS });
    total.runs += 1;
    for (const key of ['items', 'itemSources', 'posts', 'engagementStates', 'pendingAccounts', 'notices', 'batches', 'contended', 'durationMs'] as const) total[key] += run[key];
    log(`  run ${total.runs}: ${JSON.stringify(run)}`);
    if (!run.budgetSpent && run.items === 0 && run.posts === 0) return total;
  }
}

async function main(): Promise<void> {
  log(`machine: ${machineDescription()}`);
  const scratch = await openScratch('retention', 4);
  let child: Awaited<ReturnType<typeof startPostsServer>>['child'] | undefined;
  try {
    const { db } = scratch;
    const reader = await createAccount(db.prisma, { email: 'reader@example.com', planId: 'business' });
    await db.pool.query('UPDATE users SET rate_limit_per_minute = 100000000');
    const started = Date.now();
    await fill(db, reader.accountId, 'live', LIVE, 1);
    for (let index = 0; index < EXPIRED_ACCOUNTS; index += 1) {
      const owner = await createAccount(db.prisma, { email: `expired${index}@example.com`, planId: 'starter' });
      await fill(db, owner.accountId, `old${index}x`, EXPIRED / EXPIRED_ACCOUNTS, 100 + index);
    }
    await db.pool.query('VACUUM ANALYZE feed_items, feed_item_sources, x_posts');
    await db.pool.query('CHECKPOINT').catch(() => log('(CHECKPOINT refused)'));
    log(`data: ${LIVE.toLocaleString('en')} live items for the account under load, ${EXPIRED.toLocaleString('en')} expired items over ${EXPIRED_ACCOUNTS} accounts, in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const servers = await startPostsServer({ DATABASE_URL: scratch.databaseUrl, REDIS_URL: scratch.redisUrl, SECRETS_KEY: generateSecretsKey(), QUEUE_PREFIX: scratch.prefix, LOG_LEVEL: 'warn', BARE_BODY: '{}' });
    child = servers.child;
    const port = servers.ready.gatewayPort;
    const headers = { Authorization: `Bearer ${reader.apiKey}` };
    const path = '/v1/posts?limit=20';
    log(`load: GET ${path}, ${RATE} req/s over ${CONNECTIONS} connections; sweep: batch ${LIMITS.batchSize}, pause ${LIMITS.pauseMs} ms`);
    await steadyLoad(port, path, headers, RATE, sleep(5_000));
    const baseline = await steadyLoad(port, path, headers, RATE, sleep(BASELINE_SECONDS * 1000));
    log(`baseline (no sweep): ${describe(baseline, BASELINE_SECONDS)}`);

    const sweepStarted = Date.now();
    let swept: (SweepSummary & { runs: number }) | undefined;
    const sweeping = sweepAll(db).then((summary) => (swept = summary));
    const during = await steadyLoad(port, path, headers, RATE, sweeping);
    const seconds = (Date.now() - sweepStarted) / 1000;
    if (!swept) throw new Error('the sweep did not finish');
    const { rows } = await db.pool.query<{ items: number; posts: number }>('SELECT (SELECT count(*) FROM feed_items)::int AS items, (SELECT count(*) FROM x_posts)::int AS posts');
    log(`during the sweep: ${describe(during, seconds)}`);
    log(`sweep: ${swept.items.toLocaleString('en')} items, ${swept.itemSources.toLocaleString('en')} source rows, ${swept.posts.toLocaleString('en')} posts in ${seconds.toFixed(1)} s ` +
      `(${(swept.items / seconds).toFixed(0)} items/s), ${swept.batches} batches, ${swept.runs} runs, ${swept.contended} contended`);
    log(`left: ${rows[0]?.items} items (live: ${LIVE}), ${rows[0]?.posts} posts`);
    log(`p99 during / baseline: ${(during.p99 / baseline.p99).toFixed(2)}x; p50 ${(during.p50 / baseline.p50).toFixed(2)}x; goal p99 <= 30 ms: ${during.p99 <= 30 ? 'met' : 'NOT met'}`);
  } finally {
    child?.kill();
    await scratch.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

// How long a feed writer holds the feed clock's row lock, and the most feed transactions per second the clock lets
// through, with 1 to 32 writers at once (what replicas of the scanner and the poller add up to).
//
//   flock /tmp/hw-bench.lock npx tsx --tsconfig bench/tsconfig.json bench/capacity-feed-clock.ts
//
// Each writer is one connection running storePack's shape of transaction: BEGIN; a usage row update of its own
// account (not shared); the feed insert of a batch (`insertFeedItems`, which takes the clock); a second write (the
// quota and alert hand-off); COMMIT. The clock is held from the feed insert to the COMMIT's answer, which the
// writer times. Knobs: CLOCK_BENCH_SECONDS (per step, default 8), CLOCK_BENCH_BATCH (items per transaction, 20).
// Makes its own database and removes it.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { migrate, seedPlans } from '@hashwatch/db';
import { insertFeedItems, type NewFeedItem } from '@hashwatch/feed';
import { databaseUrlFor } from '@hashwatch/testing';
import { admin, machineDescription, percentile } from './bench-support';

const SECONDS = Number(process.env.CLOCK_BENCH_SECONDS ?? 8);
const BATCH = Number(process.env.CLOCK_BENCH_BATCH ?? 20);
const WRITERS = [1, 2, 4, 8, 16, 32];
const log = (line: string) => process.stdout.write(`${line}\n`);

export interface ClockStep {
  writers: number;
  transactionsPerSecond: number;
  holdP50Ms: number;
  holdP99Ms: number;
  waitP50Ms: number;
}

function batchFor(userId: string, writer: number, round: number): NewFeedItem[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    userId, dedupeKey: `x:${writer}-${round}-${i}`, type: 'hashtag', hashtag: 'btc', account: null, sources: ['#btc'],
    xPostId: `${writer}${round}${i}`, authorId: '1', author: 'alice', authorName: 'Alice', text: `#btc post ${round} ${i}`,
    url: `https://x.com/alice/status/${writer}${round}${i}`, postedAt: new Date(),
  }));
}

async function runWriter(pool: pg.Pool, userId: string, writer: number, until: number, out: { hold: number[]; wait: number[] }): Promise<void> {
  const client = await pool.connect();
  try {
    for (let round = 0; performance.now() < until; round += 1) {
      await client.query('BEGIN');
      await client.query('UPDATE users SET updated_at = now() WHERE id = $1', [userId]);
      const sent = performance.now();
      const { inserted } = await insertFeedItems(client, batchFor(userId, writer, round));
      const clockTaken = performance.now();
      await client.query('UPDATE users SET updated_at = clock_timestamp() WHERE id = $1 AND $2::int >= 0', [userId, inserted.length]);
      await client.query('COMMIT');
      const released = performance.now();
      out.hold.push(released - sent);
      out.wait.push(clockTaken - sent);
    }
  } finally {
    client.release();
  }
}

async function step(pool: pg.Pool, users: string[], writers: number): Promise<ClockStep> {
  const out = { hold: [] as number[], wait: [] as number[] };
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: writers }, (_, w) => runWriter(pool, users[w] as string, w, until, out)));
  const hold = [...out.hold].sort((a, b) => a - b);
  const wait = [...out.wait].sort((a, b) => a - b);
  return {
    writers,
    transactionsPerSecond: hold.length / SECONDS,
    holdP50Ms: percentile(hold, 0.5),
    holdP99Ms: percentile(hold, 0.99),
    waitP50Ms: percentile(wait, 0.5),
  };
}

async function main(): Promise<void> {
  const database = `hw_bench_clock_${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE "${database}"`));
  const pool = new pg.Pool({ connectionString: databaseUrlFor(database), max: 40 });
  pool.on('error', () => undefined);
  try {
    await migrate(pool);
    await seedPlans(pool);
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO users (id, email, plan_id, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit,
                          scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute, subscription_status,
                          current_period_start, current_period_end)
       SELECT 'usr_clock' || g, 'clock' || g || '@example.com', p.id, p.hashtags_limit, p.accounts_limit, p.engagement_limit,
              p.webhooks_limit, p.alerts_limit, p.scan_interval_seconds, p.engagement_refresh_seconds, p.rate_limit_per_minute,
              'active', now(), now() + interval '30 days'
         FROM generate_series(1, 32) g, plans p WHERE p.id = 'business' RETURNING id`,
    );
    const users = rows.map((row) => row.id);
    log(`machine: ${machineDescription()}`);
    log(`${SECONDS} s per step, ${BATCH} items per transaction`);
    log('| writers | feed transactions/s | vs 1 writer | clock held p50 / p99 ms (insert sent → COMMIT answered) | waiting for the clock p50 ms |');
    log('|---:|---:|---:|---|---:|');
    let first: ClockStep | undefined;
    for (const writers of WRITERS) {
      const result = await step(pool, users, writers);
      first ??= result;
      log(`| ${writers} | ${result.transactionsPerSecond.toFixed(0)} | ${(result.transactionsPerSecond / first.transactionsPerSecond).toFixed(2)}× | ${result.holdP50Ms.toFixed(2)} / ${result.holdP99Ms.toFixed(2)} | ${result.waitP50Ms.toFixed(2)} |`);
    }
  } finally {
    await pool.end();
    await admin((client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

// GET /v1/posts under load, against a bare Express handler in the same run.
//
//   npx tsx --tsconfig bench/tsconfig.json bench/posts-feed.ts
//
// Needs PostgreSQL (DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/hashwatch; the role must be
// able to CREATE DATABASE) and Redis (REDIS_URL). Makes its own databases and Redis prefix and removes them.
// POSTS_BENCH_ITEMS=<n> shrinks the data for a quick run (the deep page stays at 90% of it);
// POSTS_BENCH_PROFILE=<dir> loads only the feed (10 s) and writes a V8 CPU profile of the server process there.
// POSTS_BENCH_POOL=<n> sets the gateway's PostgreSQL pool (default 10, as apps/gateway/src/main.ts).
// POSTS_BENCH_LOG_LEVEL=<level> sets the gateway's LOG_LEVEL (default info, as main.ts: a JSON line per request).
// POSTS_BENCH_QUICK=1 measures only the headline pair (feed and bare, two rounds) and authentication alone.
// Goals: the feed at >= 35% of the bare handler's req/s with p99 < 30 ms (50 connections), and a page
// 900,000 items deep at <= 1.3x the first page's p50.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import type pg from 'pg';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { createAccount } from '@hashwatch/accounts';
import { createDatabase, migrate, seedPlans, type Database } from '@hashwatch/db';
import { generateSecretsKey } from '@hashwatch/secrets';
import { baseDatabaseUrl, databaseUrlFor, deletePrefixKeys } from '@hashwatch/testing';
import { listPosts, postCursor } from '@hashwatch/gateway';
import { admin, cpuBetween, cpuSecondsWhere, machineDescription } from './bench-support';
import type { LoopDelay } from './posts-server';
import { startPostsServer } from './posts-server-process';

const ITEMS = Number(process.env.POSTS_BENCH_ITEMS ?? 1_000_000);
const OTHER_TENANT_ITEMS = ITEMS / 10;
const DEEP = ITEMS * 0.9;
const CONNECTIONS = 50;
const SECONDS = 10;
const QUICK = process.env.POSTS_BENCH_QUICK === '1';

interface Row {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU time per request, in microseconds, of the server process, of every PostgreSQL process, of Redis and of the load generator. */
  cpu: { server: number; postgres: number; redis: number; loader: number };
}

let serverPid: number | undefined;
let serverChild: ChildProcess | undefined;

/** The server's event-loop delay during `work`, in ms. */
async function withLoopDelay<T>(work: () => Promise<T>): Promise<{ result: T; loop: LoopDelay | undefined }> {
  const child = serverChild;
  if (!child) return { result: await work(), loop: undefined };
  child.send({ loop: 'reset' });
  const result = await work();
  const answered = new Promise<LoopDelay>((resolve) => {
    const onMessage = (message: { loop?: LoopDelay }) => {
      if (!message.loop) return;
      child.off('message', onMessage);
      resolve(message.loop);
    };
    child.on('message', onMessage);
  });
  child.send({ loop: 'read' });
  return { result, loop: await answered };
}
function cpuSnapshot() {
  return {
    server: cpuSecondsWhere((pid) => Number(pid) === serverPid),
    // Every PostgreSQL process of the host, background writers included: they work for this load too.
    postgres: cpuSecondsWhere((_pid, comm) => comm === 'postgres'),
    redis: cpuSecondsWhere((_pid, comm) => comm === 'redis-server'),
    loader: process.cpuUsage(),
  };
}

const log = (line: string) => process.stdout.write(`${line}\n`);

/** 1M items for one account (and 100k for another) in one set-based INSERT each: 3 items per millisecond, mixed types. */
async function fill(db: Database, userId: string, count: number, salt: string): Promise<void> {
  // A million rows take longer than the pool's statement timeout on a 2-CPU machine (about 60 s here).
  const client = await db.pool.connect();
  try {
    await client.query('SET statement_timeout = 0');
    await fillWith(client, userId, count, salt);
  } finally {
    await client.query('RESET statement_timeout').catch(() => undefined);
    client.release();
  }
}

async function fillWith(db: pg.PoolClient, userId: string, count: number, salt: string): Promise<void> {
  await db.query(
    `INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, account, sources, x_post_id, author_id, author, author_name,
                             text, url, posted_at, detected_at, parent_id, kind, engagement_tracked, retweet_count, like_count,
                             reply_count, retweeters, likers, repliers, engagement_updated_at)
     SELECT 'post_' || substr(md5($2 || g), 1, 16), $1, 'x:' || g,
            (CASE WHEN g % 20 = 0 THEN 'engagement' WHEN g % 20 = 1 THEN 'account' ELSE 'hashtag' END)::feed_item_type,
            CASE WHEN g % 20 = 1 THEN NULL ELSE (ARRAY['btc', 'eth', 'sol'])[1 + g % 3] END,
            CASE WHEN g % 20 = 1 THEN 'alice' END,
            CASE WHEN g % 20 = 1 THEN ARRAY['@alice']
                 WHEN g % 5000 = 2 THEN ARRAY['#rare', '@alice']
                 WHEN g % 7 = 0 THEN ARRAY['#' || (ARRAY['btc', 'eth', 'sol'])[1 + g % 3], '@alice']
                 ELSE ARRAY['#' || (ARRAY['btc', 'eth', 'sol'])[1 + g % 3]] END,
            (1860000000000000000 + g)::text, (g % 50000)::text, '@user' || (g % 50000), 'User number ' || (g % 50000),
            'Post ' || g || ': ' || repeat('markets are moving today, ', 5) || '#btc $eth',
            'https://x.com/user' || (g % 50000) || '/status/' || (1860000000000000000 + g),
            CASE WHEN g % 20 = 0 THEN NULL ELSE $3::timestamptz + (g / 3) * interval '1 millisecond' - interval '4 seconds' END,
            $3::timestamptz + (g / 3) * interval '1 millisecond',
            CASE WHEN g % 20 = 0 THEN 'post_' || substr(md5($2 || (g - 1)), 1, 16) END,
            CASE WHEN g % 20 = 0 THEN 'like'::engagement_kind END,
            g % 3 = 0 AND g % 20 <> 0,
            g % 100, g % 1000, g % 10,
            CASE WHEN g % 3 = 0 THEN ARRAY['@bob', '@carol', '@dave', '@erin', '@frank'] ELSE '{}' END,
            CASE WHEN g % 3 = 0 THEN ARRAY['@gina', '@hank', '@ivan', '@judy', '@kate', '@liam'] ELSE '{}' END,
            '{}',
            CASE WHEN g % 3 = 0 THEN $3::timestamptz + (g / 3) * interval '1 millisecond' + interval '1 minute' END
       FROM generate_series(1, $4::int) AS g`,
    [userId, salt, new Date(Date.now() - 86_400_000), count],
  );
}

async function load(name: string, url: string, headers: Record<string, string>, connections = CONNECTIONS, duration = SECONDS): Promise<Row> {
  const before = cpuSnapshot();
  const { result, loop } = await withLoopDelay(() => autocannon({ url, connections, duration, headers }));
  const after = cpuSnapshot();
  const loader = process.cpuUsage(before.loader);
  const perRequest = (seconds: number) => (seconds * 1e6) / Math.max(result.requests.total, 1);
  const cpu = {
    server: perRequest(cpuBetween(before.server, after.server)),
    postgres: perRequest(cpuBetween(before.postgres, after.postgres)),
    redis: perRequest(cpuBetween(before.redis, after.redis)),
    loader: perRequest((loader.user + loader.system) / 1e6),
  };
  const row = { name, reqPerSec: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts, cpu };
  log(
    `  ${name}: ${row.reqPerSec.toFixed(0)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, non-2xx ${row.non2xx}, errors ${row.errors}; ` +
      `CPU µs/request: server ${cpu.server.toFixed(0)}, PostgreSQL ${cpu.postgres.toFixed(0)}, Redis ${cpu.redis.toFixed(0)}, load generator ${cpu.loader.toFixed(0)}` +
      (loop ? `; server event-loop delay p50 ${loop.p50.toFixed(1)} ms, p99 ${loop.p99.toFixed(1)} ms, max ${loop.max.toFixed(1)} ms` : ''),
  );
  return row;
}

function startServers(env: Record<string, string>): ReturnType<typeof startPostsServer> {
  return startPostsServer(env, process.env.POSTS_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.POSTS_BENCH_PROFILE}`] : []);
}

async function explain(db: Database, sql: string, values: unknown[]): Promise<string> {
  const { rows } = await db.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, values);
  return rows.map((row) => `    ${row['QUERY PLAN']}`).join('\n');
}

type Owner = Awaited<ReturnType<typeof createAccount>>;

/** The request targets: the gateway and the bare handlers, the owner's key, a poll's `since` and a deep page's cursor. */
interface Targets {
  gateway: string;
  bare: string;
  auth: Record<string, string>;
  since: string;
  deepCursor: string;
}

/** What a deep page is keyed by: the item 90% down the owner's feed. */
type DeepRow = { detected_at: Date; id: string };

const DEEP_NAME = `${DEEP.toLocaleString('en')} deep`;

/** A migrated template database, then the bench's database cloned from it. */
async function createDatabases(template: string, name: string): Promise<Database> {
  await admin((client) => client.query(`CREATE DATABASE "${template}"`));
  const tpl = createDatabase(databaseUrlFor(template), { max: 1 });
  await migrate(tpl.pool);
  await seedPlans(tpl.pool);
  await tpl.close();
  await admin((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
  const db = createDatabase(databaseUrlFor(name), { max: 4 });
  const { rows: version } = await db.pool.query<{ server_version: string }>('SHOW server_version');
  log(`PostgreSQL ${version[0]?.server_version}`);
  return db;
}

/** The account under load with ITEMS items, another with a tenth of that; vacuumed and checkpointed before any measurement. */
async function seedData(db: Database): Promise<Owner> {
  const owner = await createAccount(db.prisma, { email: 'bench@example.com', planId: 'business' });
  const other = await createAccount(db.prisma, { email: 'other@example.com', planId: 'business' });
  // The per-account cap would stop the load after 600 requests; the limiter still runs on every request.
  await db.pool.query('UPDATE users SET rate_limit_per_minute = 100000000');
  const started = Date.now();
  await fill(db, owner.accountId, ITEMS, 'a');
  await fill(db, other.accountId, OTHER_TENANT_ITEMS, 'b');
  // Both tables the load wrote (the trigger fills feed_item_sources), so autovacuum does not run during a measurement.
  await db.pool.query('VACUUM ANALYZE feed_items, feed_item_sources');
  // Flush the dirty pages of the load now, not during the first measurement.
  await db.pool.query('CHECKPOINT').catch(() => log('(CHECKPOINT refused: the role is not allowed to run it; the first measurement may be slower)'));
  log(`data: ${ITEMS.toLocaleString('en')} items for the account, ${OTHER_TENANT_ITEMS.toLocaleString('en')} for another, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return owner;
}

/** The pages the load asks for: a cursor DEEP items down, a poll's `since`, and the first page's body for the bare handler. */
async function preparePages(db: Database, ownerId: string, secretsKey: string) {
  const cursors = postCursor(secretsKey);
  const scope = { userId: ownerId, hashtag: null, account: null, type: null, sinceMs: null };
  const { rows: deepRows } = await db.pool.query<DeepRow>(
    'SELECT detected_at, id FROM feed_items WHERE user_id = $1 ORDER BY detected_at DESC, id DESC OFFSET $2 LIMIT 1',
    [ownerId, DEEP - 1],
  );
  const deepRow = deepRows[0];
  if (!deepRow) throw new Error(`no item ${DEEP} deep`);
  const deepCursor = cursors.encode({ detectedAtMs: deepRow.detected_at.getTime(), id: deepRow.id }, scope);
  const { rows: pollRows } = await db.pool.query<{ since: string }>(
    `SELECT to_char(detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS since
       FROM feed_items WHERE user_id = $1 ORDER BY detected_at DESC, id DESC OFFSET 9 LIMIT 1`,
    [ownerId],
  );
  const since = pollRows[0]?.since as string;
  const firstPage = await listPosts(db.pool, cursors, ownerId, { limit: 20 });
  const bareBody = firstPage.text;
  log(`first page: ${bareBody.length} bytes of JSON; the bare handler answers the same body`);
  return { deepRow, deepCursor, since, bareBody };
}

/** Five seconds of load on the feed, the bare handler and authentication alone, not reported. */
async function warmUp(targets: Targets): Promise<void> {
  log('warm-up (5 s each, not reported)');
  for (const [url, headers] of [[`${targets.gateway}/v1/posts?limit=20`, targets.auth], [`${targets.bare}/bare`, {}], [`${targets.bare}/auth-only`, targets.auth]] as const) {
    await autocannon({ url, connections: CONNECTIONS, duration: 5, headers });
  }
}

/** The headline pair (feed and bare handler, same body) twice, then authentication + rate limit against a bare {}. */
async function measureHeadline(targets: Targets): Promise<{ pairs: [Row, Row][]; authOnly: Row; bareEmpty: Row }> {
  const { gateway, bare, auth } = targets;
  // The headline pair twice, alternating, so a burst of other load on the machine hits both alike.
  const pairs: [Row, Row][] = [];
  for (let round = 1; round <= 2; round += 1) {
    pairs.push([
      await load(`GET /v1/posts?limit=20 (round ${round})`, `${gateway}/v1/posts?limit=20`, auth),
      await load(`bare Express, same body (round ${round})`, `${bare}/bare`, {}),
    ]);
  }
  const authOnly = await load('authenticate + rate limit, then {}', `${bare}/auth-only`, auth);
  const bareEmpty = await load('bare Express, {}', `${bare}/bare-empty`, {});
  return { pairs, authOnly, bareEmpty };
}

/** The quick run's summary: the headline ratios alone. */
function reportQuick({ pairs, authOnly, bareEmpty }: Awaited<ReturnType<typeof measureHeadline>>): void {
  const ratios = pairs.map(([feed, plain]) => `${((feed.reqPerSec / plain.reqPerSec) * 100).toFixed(1)}%`);
  log(`- quick run: feed vs bare (same body), per round: ${ratios.join(', ')}; authenticate + rate limit vs bare {}: ${((authOnly.reqPerSec / bareEmpty.reqPerSec) * 100).toFixed(1)}%`);
  log(`- load average after: ${loadavg().map((value) => value.toFixed(2)).join(', ')}`);
}

/** The filtered feeds (a common tag, a sparse type, a rare tag) and a poll with `since`. */
async function measureFilters({ gateway, auth, since }: Targets): Promise<{ filtered: Row; sparse: Row; rare: Row; poll: Row }> {
  const filtered = await load('GET /v1/posts?hashtag=eth&limit=20', `${gateway}/v1/posts?hashtag=eth&limit=20`, auth);
  const sparse = await load('GET /v1/posts?type=account&account=alice&limit=20', `${gateway}/v1/posts?type=account&account=alice&limit=20`, auth);
  const rare = await load('GET /v1/posts?hashtag=rare&limit=20 (1 item in 5,000)', `${gateway}/v1/posts?hashtag=rare&limit=20`, auth);
  const poll = await load('GET /v1/posts?since=<10th newest> (a poll)', `${gateway}/v1/posts?since=${since}`, auth);
  return { filtered, sparse, rare, poll };
}

/** Latency of one request at a time, first page against a page DEEP items down; then the deep page under full load. */
async function measureDepth({ gateway, auth, deepCursor }: Targets): Promise<{ first: Row; deep: Row; deepLoaded: Row }> {
  log(`latency of one request at a time: first page vs a page ${DEEP.toLocaleString('en')} items deep (1 connection, 5 s each)`);
  const first = await load('first page', `${gateway}/v1/posts?limit=20`, auth, 1, 5);
  const deep = await load(DEEP_NAME, `${gateway}/v1/posts?limit=20&cursor=${deepCursor}`, auth, 1, 5);
  const deepLoaded = await load(`${DEEP_NAME}, ${CONNECTIONS} connections`, `${gateway}/v1/posts?limit=20&cursor=${deepCursor}`, auth, CONNECTIONS, SECONDS);
  return { first, deep, deepLoaded };
}

/** The table of every measurement, then the goals: feed vs bare, authentication alone, deep page vs first page. */
function report(
  { pairs, authOnly, bareEmpty }: Awaited<ReturnType<typeof measureHeadline>>,
  { filtered, sparse, rare, poll }: Awaited<ReturnType<typeof measureFilters>>,
  { first, deep, deepLoaded }: Awaited<ReturnType<typeof measureDepth>>,
): void {
  const best = (rows: Row[]) => rows.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));
  const posts = best(pairs.map(([feed]) => feed));
  const bareRow = best(pairs.map(([, plain]) => plain));
  const ratios = pairs.map(([feed, plain]) => feed.reqPerSec / plain.reqPerSec);
  const deepRatio = deep.p50 / Math.max(first.p50, 0.001);
  log('');
  log('| measurement | req/s | p50 ms | p99 ms | CPU µs/request: server, PostgreSQL, Redis, load generator |');
  log('|---|---:|---:|---:|---|');
  for (const row of [...pairs.flat(), filtered, sparse, rare, poll, authOnly, bareEmpty, first, deep, deepLoaded]) {
    log(`| ${row.name} | ${row.reqPerSec.toFixed(0)} | ${row.p50} | ${row.p99} | ${row.cpu.server.toFixed(0)}, ${row.cpu.postgres.toFixed(0)}, ${row.cpu.redis.toFixed(0)}, ${row.cpu.loader.toFixed(0)} |`);
  }
  log('');
  log(`- feed vs bare (same body), per round: ${ratios.map((ratio) => `${(ratio * 100).toFixed(1)}%`).join(', ')} of the req/s (goal >= 35%); best feed round p99 ${posts.p99} ms (goal < 30 ms); best of each: ${((posts.reqPerSec / bareRow.reqPerSec) * 100).toFixed(1)}%`);
  log(`- authenticate + rate limit alone vs bare {}: ${((authOnly.reqPerSec / bareEmpty.reqPerSec) * 100).toFixed(1)}% of the req/s`);
  log(`- page ${DEEP_NAME} vs first page, p50: ${deep.p50} ms vs ${first.p50} ms = ${deepRatio.toFixed(2)}x (goal <= 1.3x)`);
  const failures = [...pairs.flat(), authOnly, bareEmpty, filtered, sparse, rare, poll, first, deep, deepLoaded].filter((row) => row.non2xx > 0 || row.errors > 0);
  if (failures.length > 0) log(`- WARNING: non-2xx or errors in ${failures.map((row) => row.name).join(', ')}`);
}

/** EXPLAIN ANALYZE of the first page, the deep page and the two filtered pages. */
async function explainPlans(db: Database, ownerId: string, deepRow: DeepRow): Promise<void> {
  log('');
  log(`query plans (EXPLAIN ANALYZE): first page, ${DEEP_NAME}, hashtag=eth, hashtag=rare`);
  const page = (where: string) => `SELECT id FROM feed_items WHERE user_id = $1 ${where} ORDER BY detected_at DESC, id DESC LIMIT 21`;
  log(await explain(db, page(''), [ownerId]));
  log(await explain(db, page('AND (detected_at, id) < ($2, $3)'), [ownerId, deepRow.detected_at, deepRow.id]));
  // Filtered pages walk feed_item_sources and join each row to its item (posts.service.ts).
  const bySource = `SELECT f.id FROM feed_item_sources s JOIN feed_items f ON f.id = s.item_id AND f.user_id = s.user_id
     WHERE s.user_id = $1 AND s.source = (SELECT $2::text) ORDER BY s.detected_at DESC, s.item_id DESC LIMIT 21`;
  log(await explain(db, bySource, [ownerId, '#eth']));
  log(await explain(db, bySource, [ownerId, '#rare']));
}

async function main(): Promise<void> {
  const run = randomBytes(4).toString('hex');
  const template = `hw_bench_${run}_tpl`;
  const name = `hw_bench_${run}`;
  const prefix = `hwbench${run}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(redisUrl);
  let db: Database | undefined;
  let child: ChildProcess | undefined;

  log('## GET /v1/posts');
  log(`machine: ${machineDescription()}`);
  log(`database: ${new URL(baseDatabaseUrl()).host}`);
  try {
    db = await createDatabases(template, name);
    const owner = await seedData(db);
    const secretsKey = generateSecretsKey();
    const pages = await preparePages(db, owner.accountId, secretsKey);
    const servers = await startServers({
      DATABASE_URL: databaseUrlFor(name),
      REDIS_URL: redisUrl,
      SECRETS_KEY: secretsKey,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: process.env.POSTS_BENCH_LOG_LEVEL ?? 'info',
      BARE_BODY: pages.bareBody,
    });
    child = servers.child;
    serverPid = child.pid;
    serverChild = child;
    const targets: Targets = {
      gateway: `http://127.0.0.1:${servers.ready.gatewayPort}`,
      bare: `http://127.0.0.1:${servers.ready.barePort}`,
      auth: { Authorization: `Bearer ${owner.apiKey}` },
      since: pages.since,
      deepCursor: pages.deepCursor,
    };

    log(`load average before the load: ${loadavg().map((value) => value.toFixed(2)).join(', ')}`);
    if (process.env.POSTS_BENCH_PROFILE) {
      // A profile of the feed alone: the bare handlers share the server process and would blur it.
      await load('GET /v1/posts?limit=20 (profiled)', `${targets.gateway}/v1/posts?limit=20`, targets.auth);
      return;
    }
    await warmUp(targets);

    log(`throughput: ${CONNECTIONS} connections, ${SECONDS} s each`);
    const started = Date.now();
    const headline = await measureHeadline(targets);
    if (QUICK) {
      reportQuick(headline);
      return;
    }
    const filters = await measureFilters(targets);
    const depth = await measureDepth(targets);
    log(`load phase took ${((Date.now() - started) / 1000).toFixed(0)} s; load average after: ${loadavg().map((value) => value.toFixed(2)).join(', ')}`);

    report(headline, filters, depth);
    await explainPlans(db, owner.accountId, pages.deepRow);
  } finally {
    if (child?.connected) {
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    }
    await db?.close();
    await admin(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    });
    await deletePrefixKeys(redis, prefix);
    redis.disconnect();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});

// Ingest throughput of the scanner: feed items stored per second with dedupe, alert quota and alert hand-off
// (outbox), against a raw `INSERT ... SELECT FROM unnest(...)` of the same rows in the same run.
//
//   npx tsx --tsconfig bench/tsconfig.json bench/scanner-ingest.ts
//
// Needs PostgreSQL (DATABASE_URL; the role must be able to CREATE DATABASE) and Redis (REDIS_URL). Makes its
// own database and Redis prefix and removes them. The X simulator runs in-process and serves full pages.
// Workload: 100 accounts, each tracking 5 of 20 tags (each tag tracked by 25 accounts); every round 200 new
// posts with one tag each, so one packed query brings 2 pages and 5,000 feed items per round.
// Goal: the scanner's store at >= 60% of the raw insert's items/s.
import type pg from 'pg';
import { newId, transaction } from '@hashwatch/db';
import { insertFeedItems, type NewFeedItem } from '@hashwatch/feed';
import type { XClient, XPost } from '@hashwatch/x-api';
import { buildQuery, createScanner, fetchPack, matchPosts, packSinceId, sourceTerms, storePack, syncSources, toFeedItem, type Source, type Subscription } from '@hashwatch/scanner';
import { benchEnvironment, log, machineLine, seedAccounts, seedTracks, type BenchEnvironment } from './scanner-support';

// SCANNER_BENCH_ACCOUNTS and SCANNER_BENCH_TAGS_PER_ACCOUNT (a divisor of 20) change the workload: 50 and 20 make
// every post 50 items, 10,000 a round (200 posts/s × 50 accounts sharing 20 tags, a second of a busy minute).
const ACCOUNTS = Number(process.env.SCANNER_BENCH_ACCOUNTS ?? 100);
const TAGS = Array.from({ length: 20 }, (_, i) => `ingest${String.fromCharCode(97 + i)}`);
const TAGS_PER_ACCOUNT = Number(process.env.SCANNER_BENCH_TAGS_PER_ACCOUNT ?? 5);
// Account u tracks tags u, u + stride, …: TAGS_PER_ACCOUNT different ones, each tag tracked by as many accounts.
const TAG_STRIDE = Math.floor(TAGS.length / TAGS_PER_ACCOUNT);
const ROUNDS = Number(process.env.SCANNER_BENCH_ROUNDS ?? 20);
const POSTS_PER_ROUND = 200;
const REPEATS = Number(process.env.SCANNER_BENCH_REPEATS ?? 3);
// SCANNER_BENCH_RICH=1: posts as X's carry them: every 3rd with a link, every 5th with a photo, every 10th quoting
// the post before it, every 7th with `&` (escaped by X): what a post carries is parsed, stored and shown.
const RICH = process.env.SCANNER_BENCH_RICH === '1';

interface Round {
  posts: XPost[];
  newestId: string | null;
  postsRead: number;
  requests: number;
}

const RAW_INSERT = `
INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, account, sources, x_post_id, author_id, author,
                        author_name, text, url, posted_at, detected_at, engagement_tracked, track_likes, track_reposts, track_comments)
SELECT r.id, r.user_id, r.dedupe_key, r.type, r.hashtag, r.account, ARRAY(SELECT jsonb_array_elements_text(r.sources::jsonb)),
       r.x_post_id, r.author_id, r.author, r.author_name, r.text, r.url, r.posted_at, now(), r.engagement_tracked, r.track_likes,
       r.track_reposts, r.track_comments
  FROM unnest($1::text[], $2::text[], $3::feed_item_type[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
              $10::text[], $11::text[], $12::text[], $13::timestamptz[], $14::boolean[], $15::boolean[], $16::boolean[], $17::boolean[], $18::text[])
    AS r(user_id, dedupe_key, type, hashtag, account, sources, x_post_id, author_id, author, author_name, text, url, posted_at,
         engagement_tracked, track_likes, track_reposts, track_comments, id)`;

async function rawInsert(client: pg.PoolClient, items: NewFeedItem[]): Promise<void> {
  const col = <T>(pick: (item: NewFeedItem) => T) => items.map(pick);
  await client.query(RAW_INSERT, [
    col((i) => i.userId), col((i) => i.dedupeKey), col((i) => i.type), col((i) => i.hashtag), col((i) => i.account),
    col((i) => JSON.stringify(i.sources)), col((i) => i.xPostId), col((i) => i.authorId), col((i) => i.author), col((i) => i.authorName),
    col((i) => i.text), col((i) => i.url), col((i) => i.postedAt?.toISOString() ?? null), col((i) => i.engagementTracked ?? false),
    col((i) => i.trackLikes ?? true), col((i) => i.trackReposts ?? true), col((i) => i.trackComments ?? true),
    // The same kind of primary key as the scanner's rows (random post_ ids), or the raw insert would get an
    // append-only index for free.
    items.map(() => newId('post')),
  ]);
}

async function reset(env: BenchEnvironment): Promise<void> {
  await env.db.pool.query('TRUNCATE feed_items, feed_item_sources, deliveries, outbox_jobs, usage_periods, x_posts CASCADE');
  await env.db.pool.query('UPDATE source_cursors SET since_id = NULL');
  await env.db.pool.query('VACUUM ANALYZE feed_items');
}

type Results = { raw: number[]; feed: number[]; scanner: number[] };

let postNo = 0;
let lastPostId: string | null = null;
/** Publishes one round of posts on the simulator, each with one of the tags in turn. */
function publishRound(env: BenchEnvironment): void {
  for (let i = 0; i < POSTS_PER_ROUND; i += 1) {
    postNo += 1;
    const text = `news ${postNo} about #${TAGS[postNo % TAGS.length]}${RICH && postNo % 7 === 0 ? ' & more <here>' : ''}`;
    if (!RICH) {
      env.sim.state.injectPost({ author: `writer${postNo % 50}`, text, lang: 'en' });
      continue;
    }
    const post = env.sim.state.injectPost({
      author: `writer${postNo % 50}`,
      text,
      lang: 'en',
      ...(postNo % 3 === 0 ? { links: [`https://example.com/article/${postNo}?ref=x&utm=1`] } : {}),
      ...(postNo % 5 === 0 ? { media: [{ type: 'photo' as const, url: `https://pbs.twimg.com/media/p${postNo}.jpg`, width: 1200, height: 675, alt_text: 'a chart' }] } : {}),
      ...(postNo % 10 === 0 && lastPostId ? { quote_of: lastPostId } : {}),
    });
    lastPostId = post.id;
  }
}

/** The accounts and their tracks, and the tag sources they make, all packed in one query. */
async function seedWorkload(env: BenchEnvironment): Promise<{ sources: Source[]; query: string }> {
  const users = await seedAccounts(env.db, ACCOUNTS, { alertsLimit: 10_000_000, scanIntervalSeconds: 60 });
  await seedTracks(env.db, users.flatMap((userId, u) => Array.from({ length: TAGS_PER_ACCOUNT }, (_, k) => ({ userId, hashtag: TAGS[(u + k * TAG_STRIDE) % TAGS.length] as string }))), 3_600_000);
  await syncSources(env.db.pool);
  const { rows: sourceRows } = await env.db.pool.query<{ not_before: Date }>('SELECT not_before FROM source_cursors LIMIT 1');
  const notBefore = sourceRows[0]?.not_before ?? new Date(0);
  const sources: Source[] = TAGS.map((name) => ({ key: `tag:${name}`, kind: 'tag', name, sinceId: null, notBefore, intervalSeconds: 60, failures: 0 }));
  return { sources, query: buildQuery(sources.flatMap(sourceTerms)) };
}

/** The rounds, fetched once from the simulator (full pages of 100), replayed by every contender; and the last cursor. */
async function fetchRounds(env: BenchEnvironment, x: XClient, sources: Source[], query: string): Promise<{ rounds: Round[]; cursor: string | null }> {
  const rounds: Round[] = [];
  let cursor: string | null = null;
  for (let r = 0; r < ROUNDS; r += 1) {
    publishRound(env);
    const fetched = await fetchPack(x, query, packSinceId(sources.map((s) => ({ ...s, sinceId: cursor })), Date.now()), { retryDelaysMs: [], sleep: async () => undefined, now: Date.now });
    cursor = fetched.newestId;
    rounds.push({ posts: fetched.posts, newestId: fetched.newestId, postsRead: fetched.postsRead, requests: fetched.requests });
  }
  return { rounds, cursor };
}

/** The tracks as the scanner's matcher sees them. */
async function loadSubscriptions(env: BenchEnvironment): Promise<Subscription[]> {
  const { rows: subscriptionRows } = await env.db.pool.query<{ id: string; user_id: string; hashtag: string; hashtag_norm: string; created_at: Date }>(
    'SELECT id, user_id, hashtag, hashtag_norm, created_at FROM tracks',
  );
  return subscriptionRows.map((row) => ({
    id: row.id, kind: 'hashtag', sourceKey: `tag:${row.hashtag_norm}`, userId: row.user_id, label: row.hashtag, norm: row.hashtag_norm,
    lang: null, excludeRetweets: true, excludeReplies: false, xUserId: null, trackEngagement: false, trackLikes: true, trackReposts: true,
    trackComments: true, createdAt: row.created_at, filters: null, includeMentions: false,
  }));
}

/** Each round's feed items, matched and built in JS as storePack does it, timed; the rows the raw insert and insertFeedItems store. */
function buildItems(rounds: Round[], sources: Source[], subscriptions: Subscription[]): NewFeedItem[][] {
  const matchStarted = performance.now();
  const rawRounds = rounds.map((round) => matchPosts(round.posts, sources, subscriptions).candidates.map(toFeedItem));
  const matchMs = performance.now() - matchStarted;
  const totalItems = rawRounds.reduce((sum, items) => sum + items.length, 0);
  log(`matching and building the items alone (in JS, part of storePack): ${matchMs.toFixed(0)} ms for all rounds`);
  log(`workload: ${ROUNDS} rounds of ${POSTS_PER_ROUND} posts${RICH ? ' with links, photos, quotes and escapes' : ''}, ${totalItems} feed items (${totalItems / ROUNDS} per transaction)`);
  return rawRounds;
}

/** The raw INSERT ... SELECT FROM unnest of every round, one transaction each. */
async function storeRaw(env: BenchEnvironment, rawRounds: NewFeedItem[][]): Promise<void> {
  for (const items of rawRounds) await transaction(env.db.pool, (client) => rawInsert(client, items));
}

/** insertFeedItems of every round, one transaction each. */
async function storeFeed(env: BenchEnvironment, rawRounds: NewFeedItem[][]): Promise<void> {
  for (const items of rawRounds) await transaction(env.db.pool, (client) => insertFeedItems(client, items));
}

/** The scanner's storePack of every round, one transaction each; returns how many items it stored. */
async function storeScanner(env: BenchEnvironment, rounds: Round[], sources: Source[]): Promise<number> {
  let stored = 0;
  for (const round of rounds) {
    const result = await transaction(env.db.pool, (client) => storePack(client, { sources, claimId: 0, posts: round.posts, complete: { newestId: round.newestId }, postsRead: round.postsRead, requests: round.requests }));
    stored += result.inserted.length;
  }
  return stored;
}

/** Runs `work` on emptied tables; returns what it returned and the seconds it took. */
async function onEmptyTables<T>(env: BenchEnvironment, work: () => Promise<T>): Promise<{ result: T; seconds: number }> {
  await reset(env);
  const started = performance.now();
  const result = await work();
  return { result, seconds: (performance.now() - started) / 1000 };
}

/** Items/s of the raw insert, insertFeedItems alone and the scanner's storePack on the same rounds, REPEATS times each. */
async function measureStores(env: BenchEnvironment, rounds: Round[], rawRounds: NewFeedItem[][], sources: Source[]): Promise<Results> {
  const totalItems = rawRounds.reduce((sum, items) => sum + items.length, 0);
  const results: Results = { raw: [], feed: [], scanner: [] };
  for (let repeat = 0; repeat < REPEATS; repeat += 1) {
    const raw = await onEmptyTables(env, () => storeRaw(env, rawRounds));
    results.raw.push(totalItems / raw.seconds);
    // The feed package's insert alone (feed clock, RETURNING, its row building): the floor of any feed writer.
    const feed = await onEmptyTables(env, () => storeFeed(env, rawRounds));
    results.feed.push(totalItems / feed.seconds);
    const scanner = await onEmptyTables(env, () => storeScanner(env, rounds, sources));
    results.scanner.push(scanner.result / scanner.seconds);
    if (scanner.result !== totalItems) throw new Error(`scanner stored ${scanner.result} of ${totalItems}`);
  }
  return results;
}

/** The contenders' best items/s, their runs and their share of the raw insert's. */
function reportStores(results: Results): void {
  const best = (values: number[]) => Math.max(...values);
  log('');
  log(`| contender | feed items/s (best of ${REPEATS}) | runs | vs raw |`);
  log('|---|---|---|---|');
  log(`| raw INSERT ... SELECT FROM unnest (same rows and batches) | ${best(results.raw).toFixed(0)} | ${results.raw.map((v) => v.toFixed(0)).join(', ')} | 100% |`);
  log(`| insertFeedItems alone (@hashwatch/feed: feed clock, RETURNING) | ${best(results.feed).toFixed(0)} | ${results.feed.map((v) => v.toFixed(0)).join(', ')} | ${((best(results.feed) / best(results.raw)) * 100).toFixed(0)}% |`);
  log(`| scanner storePack: match, dedupe, quota, x_posts, cursors, health, feed clock, outbox | ${best(results.scanner).toFixed(0)} | ${results.scanner.map((v) => v.toFixed(0)).join(', ')} | ${((best(results.scanner) / best(results.raw)) * 100).toFixed(0)}% |`);
}

/** End to end: 5 ticks of the real scanner, fetching from the simulator and relaying each alert job to BullMQ. */
async function measureEndToEnd(env: BenchEnvironment, x: XClient, cursor: string | null): Promise<void> {
  await reset(env);
  await env.db.pool.query(`UPDATE source_cursors SET since_id = $1`, [cursor]);
  const scanner = createScanner({ pool: env.db.pool, x, queues: env.queues, logger: env.logger, maxQueryLength: 512 });
  let e2eItems = 0;
  let e2eMs = 0;
  for (let r = 0; r < 5; r += 1) {
    publishRound(env);
    await env.db.pool.query('UPDATE source_cursors SET next_scan_at = now()');
    const started = performance.now();
    const summary = await scanner.runTick();
    e2eMs += performance.now() - started;
    e2eItems += summary.stored;
  }
  const jobs = await env.queues.byName['alert-routing'].getJobCountByTypes('waiting', 'prioritized', 'delayed');
  log(`| scanner tick end to end: fetch 2 pages, store, relay every alert job to BullMQ | ${(e2eItems / (e2eMs / 1000)).toFixed(0)} | 5 ticks, ${e2eItems} items, ${jobs} jobs in Redis | |`);
}

async function main(): Promise<void> {
  log(machineLine());
  const env = await benchEnvironment('ingest');
  try {
    const { sources, query } = await seedWorkload(env);
    const x = env.xClient();
    const { rounds, cursor } = await fetchRounds(env, x, sources, query);
    const rawRounds = buildItems(rounds, sources, await loadSubscriptions(env));
    reportStores(await measureStores(env, rounds, rawRounds, sources));
    await measureEndToEnd(env, x, cursor);
  } finally {
    await env.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

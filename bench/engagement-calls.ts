// Upstream calls per tracked post per refresh: 10,000 tracked posts, 2% of which gain likes every cycle.
//
//   npx tsx --tsconfig bench/tsconfig.json bench/engagement-calls.ts
//
// Needs PostgreSQL (DATABASE_URL; the role must be able to CREATE DATABASE) and Redis (REDIS_URL); makes its
// own database and Redis prefix and removes them. The X simulator runs in-process with its limits lifted, so
// every call the poller decides to make is served and counted; the poller's own budget keeps to X's limits.
// ENGAGEMENT_BENCH_POSTS / ENGAGEMENT_BENCH_CYCLES change the size.
//
// Three runs on the same posts, the same clock (one cycle = 60 s of the poller's clock) and the same changes:
//   1. the poller as shipped: X's limits for liking users (75 per 15 min), most-changed first;
//   2. the poller with no sample budget: what the design costs when every post whose count rose is sampled
//      (the floor: one lookup per 100 posts plus one sample call per post whose count rose);
//   3. the naive baseline ("up to 3 calls per tracked post"): every post on its own, every refresh: one lookup of that post, its
//      liking users and its retweeting users (3 calls; replies would make it 4).
// Goal: under 0.05 calls per tracked post per refresh; floor 0.03; the naive figure is 3.
import { createWorld, log, machine, pick, sum, type BenchWorld } from './engagement-support';

const POSTS = Number(process.env.ENGAGEMENT_BENCH_POSTS ?? 10_000);
const CYCLES = Number(process.env.ENGAGEMENT_BENCH_CYCLES ?? 15);
const CHANGED_SHARE = 0.02;
const OPEN = { perWindow: 10_000_000, windowSeconds: 900, burst: 1_000_000 };

interface RunResult {
  name: string;
  cycles: number;
  calls: Record<string, number>;
  perPostPerRefresh: number;
  changedPerCycle: number;
  sampledPerCycle: number;
  backlog: number;
  secondsPerCycle: number;
}

let bumpRound = 0;
/** 2% of the posts gain 1 to 3 likes from new named accounts. */
async function bump(world: BenchWorld): Promise<number> {
  bumpRound += 1;
  const chosen = pick(Math.round(POSTS * CHANGED_SHARE), POSTS, 7919 * bumpRound);
  await world.sim.addLikes(
    chosen.map((index, i) => ({ id: world.postIds[index] as string, usernames: Array.from({ length: 1 + (i % 3) }, (_, j) => `c${bumpRound}p${index}n${j}`) })),
  );
  return chosen.length;
}

function diff(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([key, value]) => [key, value - (before[key] ?? 0)]).filter(([, value]) => (value as number) > 0));
}

async function backlog(world: BenchWorld): Promise<number> {
  const { rows } = await world.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM engagement_states WHERE like_count > sampled_likes');
  return rows[0]?.n ?? 0;
}

async function pollerRun(world: BenchWorld, name: string, options: Parameters<BenchWorld['poller']>[0]): Promise<RunResult> {
  const poller = world.poller(options);
  // The first cycle brings the posts into polling (discovery) with nothing to sample yet; not counted.
  world.clock.advance(60_000);
  await poller.runCycle();
  const before = await world.calls();
  let changed = 0;
  let sampled = 0;
  const started = Date.now();
  for (let cycle = 1; cycle <= CYCLES; cycle += 1) {
    world.clock.advance(60_000);
    changed += await bump(world);
    const report = await poller.runCycle();
    sampled += report.samples.like?.sampled ?? 0;
  }
  const calls = diff(await world.calls(), before);
  return {
    name,
    cycles: CYCLES,
    calls,
    perPostPerRefresh: sum(calls) / (POSTS * CYCLES),
    changedPerCycle: changed / CYCLES,
    sampledPerCycle: sampled / CYCLES,
    backlog: await backlog(world),
    secondsPerCycle: (Date.now() - started) / 1000 / CYCLES,
  };
}

async function naiveRun(world: BenchWorld, cycles: number): Promise<RunResult> {
  const x = world.xClient(`${world.prefix}:naive`);
  const before = await world.calls();
  const started = Date.now();
  let changed = 0;
  for (let cycle = 0; cycle < cycles; cycle += 1) {
    changed += await bump(world);
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < POSTS) {
          const id = world.postIds[next++] as string;
          await x.postsByIds([id]);
          await x.likingUsers(id);
          await x.retweetedBy(id);
        }
      }),
    );
  }
  const calls = diff(await world.calls(), before);
  return {
    name: 'naive baseline (3 calls per post per refresh)',
    cycles,
    calls,
    perPostPerRefresh: sum(calls) / (POSTS * cycles),
    changedPerCycle: changed / cycles,
    sampledPerCycle: POSTS,
    backlog: 0,
    secondsPerCycle: (Date.now() - started) / 1000 / cycles,
  };
}

function report(results: RunResult[]): void {
  const naive = results.find((r) => r.name.startsWith('naive'));
  log('');
  log('| run | cycles | calls by endpoint | calls per post per refresh | vs naive | posts changed / cycle | sampled / cycle | unsampled at end | s / cycle |');
  log('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const endpoints = Object.entries(r.calls).map(([endpoint, n]) => `${endpoint} ${n}`).join(', ');
    const ratio = naive ? `${(r.perPostPerRefresh / naive.perPostPerRefresh).toFixed(4)}x` : '';
    log(`| ${r.name} | ${r.cycles} | ${endpoints} | ${r.perPostPerRefresh.toFixed(4)} | ${ratio} | ${r.changedPerCycle} | ${r.sampledPerCycle.toFixed(1)} | ${r.backlog} | ${r.secondsPerCycle.toFixed(2)} |`);
  }
}

async function main(): Promise<void> {
  log(`engagement upstream calls: ${POSTS} tracked posts, ${CHANGED_SHARE * 100}% gain likes per cycle, ${CYCLES} cycles of 60 s`);
  log(`machine: ${machine()}`);
  const world = await createWorld({ posts: POSTS, accounts: 20, shared: POSTS / 10, refreshSeconds: 60 });
  try {
    const results: RunResult[] = [];
    results.push(await pollerRun(world, 'poller, X limits (75 liking-users calls / 15 min)', {}));
    // The next run starts from a clean slate: what the first could not sample within X's limits is settled.
    await world.db.pool.query('UPDATE engagement_states SET sampled_likes = like_count, sampled_retweets = retweet_count, sampled_replies = reply_count');
    results.push(await pollerRun(world, 'poller, no sample budget (the floor)', { allowances: { like: OPEN, retweet: OPEN, reply: OPEN }, maxSamplesPerCycle: 100_000 }));
    results.push(await naiveRun(world, 2));
    report(results);
  } finally {
    await world.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

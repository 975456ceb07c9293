// Where the worst-case refresh cycle goes (all posts discovered at once, every count new), statement by
// statement: EXPLAIN (ANALYZE, BUFFERS) of one batch's claim and counts write (rolled back), then one
// measured cycle with the time every statement took, summed by statement (batches run in parallel, so
// the sums add up to more than the wall time).
//
//   flock /tmp/hw-bench.lock npx tsx --tsconfig bench/tsconfig.json bench/engagement-profile.ts
//
// Needs what bench/engagement-cycle.ts needs; ENGAGEMENT_BENCH_POSTS changes the size (default 100,000).
import pg from 'pg';
import { CLAIM, discoverTrackedPosts, WRITE_COUNTS, type CycleReport } from '@hashwatch/engagement-poller';
import { cpuBetween } from './bench-support';
import { createWorld, log, machine, ownCpuSeconds, postgresCpu, type BenchWorld } from './engagement-support';

const POSTS = Number(process.env.ENGAGEMENT_BENCH_POSTS ?? 100_000);

type StatementTotals = Map<string, { calls: number; ms: number }>;

/** A statement's name, or its first 60 characters on one line. */
const label = (config: unknown): string => {
  if (typeof config === 'string') return config.replace(/\s+/g, ' ').trim().slice(0, 60);
  const named = config as { name?: string; text?: string };
  return named.name ?? (named.text ?? '').replace(/\s+/g, ' ').trim().slice(0, 60);
};

/** Every post gets likes, a third also retweets, all anonymous: every count is new, no account to sample. */
async function addEngagement(world: BenchWorld): Promise<void> {
  await world.sim.addLikes(world.postIds.map((id, i) => ({ id, anonymous: 1 + (i % 50) })));
  await world.sim.addRetweets(world.postIds.filter((_, i) => i % 3 === 0).map((id, i) => ({ id, anonymous: 1 + (i % 7) })));
}

/** Discovery of every post on its own, timed; its mark is cleared so the measured cycle discovers again. */
async function discoverAlone(world: BenchWorld, now: Date): Promise<void> {
  const started = Date.now();
  await discoverTrackedPosts(world.db.pool, world.redis, world.prefix, now);
  log(`discovery alone: ${((Date.now() - started) / 1000).toFixed(2)} s`);
  await world.redis.del(`${world.prefix}:engagement:discovered-until`);
}

/** Prints EXPLAIN (ANALYZE, BUFFERS) of one statement under a title. */
async function explain(client: pg.PoolClient, title: string, text: string, values: unknown[]): Promise<void> {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
  log(`\n== ${title}`);
  for (const row of rows) log(row['QUERY PLAN']);
}

/** EXPLAIN of one batch's claim and counts write, rolled back: the states as discovery leaves them. */
async function explainBatch(world: BenchWorld, now: Date): Promise<void> {
  const client = await world.db.pool.connect();
  try {
    await client.query('BEGIN');
    await explain(client, 'claim (100 posts)', CLAIM, [now, 100]);
    const { rows } = await client.query<{ x_post_id: string }>('SELECT x_post_id FROM engagement_states ORDER BY next_poll_at LIMIT 100');
    const ids = rows.map((row) => row.x_post_id);
    const lookup = await world.xClient(`${world.prefix}:profile`).postCounts(ids);
    const metrics = new Map(lookup.posts.map((post) => [post.id, post.metrics]));
    await explain(client, 'write counts (100 posts, every count new)', WRITE_COUNTS, [
      ids,
      ids.map((id) => metrics.get(id)?.retweetCount ?? null),
      ids.map((id) => metrics.get(id)?.likeCount ?? null),
      ids.map((id) => metrics.get(id)?.replyCount ?? null),
      ids.map((id) => (metrics.has(id) ? 'found' : 'unknown')),
      now,
      true,
      [],
    ]);
    await explainPlanning(client, ids, now);
    await client.query('ROLLBACK');
  } finally {
    client.release();
  }
}

/** Planning and execution times of eight runs of the counts write as a prepared statement. */
async function explainPlanning(client: pg.PoolClient, ids: string[], now: Date): Promise<void> {
  // A named statement gets custom plans for its first 5 runs, then a generic one if the planner finds it no
  // worse. Eight runs of the same batch show which one this statement ends up with.
  const types = 'text[], int[], int[], int[], text[], timestamptz, boolean, text[]';
  await client.query(`PREPARE write_counts_probe (${types}) AS ${WRITE_COUNTS}`);
  const planning: string[] = [];
  for (let run = 0; run < 8; run += 1) {
    const { rows: plan } = await client.query<{ 'QUERY PLAN': string }>(
      // EXECUTE takes no bind parameters inside EXPLAIN: literals (ids are digits only).
      `EXPLAIN (ANALYZE, SUMMARY) EXECUTE write_counts_probe('{${ids.join(',')}}', '{${ids.map(() => 1).join(',')}}', '{${ids.map(() => 1 + run).join(',')}}',
         '{${ids.map(() => 0).join(',')}}', '{${ids.map(() => 'found').join(',')}}', '${now.toISOString()}', true, '{}')`,
    );
    const times = plan.map((row) => row['QUERY PLAN']).filter((line) => /^(Planning|Execution) Time/.test(line));
    planning.push(times.join(', '));
  }
  log(`\n== write counts, 8 runs of the prepared statement: ${planning.join(' | ')}`);
}

/** Times every statement any pg client runs from now until `stop()`, summed by statement. */
function timeStatements(): { totals: StatementTotals; stop(): void } {
  const totals: StatementTotals = new Map();
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function timed(this: pg.Client, ...args: unknown[]) {
    const key = label(args[0]);
    const at = process.hrtime.bigint();
    const result = (original as (...a: unknown[]) => unknown).apply(this, args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      void (result as Promise<unknown>).then(
        () => {
          const entry = totals.get(key) ?? { calls: 0, ms: 0 };
          entry.calls += 1;
          entry.ms += Number(process.hrtime.bigint() - at) / 1e6;
          totals.set(key, entry);
        },
        () => undefined,
      );
    }
    return result;
  } as typeof original;
  return {
    totals,
    stop: () => {
      pg.Client.prototype.query = original;
    },
  };
}

/** One worst-case cycle, every statement timed; logs the CPU the poller, the simulator and PostgreSQL used. */
async function measureCycle(world: BenchWorld): Promise<{ report: CycleReport; totals: StatementTotals }> {
  // Discovery again from scratch: the states already exist, so it only re-reads.
  await world.db.pool.query('UPDATE engagement_states SET counts_updated_at = NULL, retweet_count = 0, like_count = 0, reply_count = 0');
  await world.db.pool.query('VACUUM ANALYZE engagement_states');
  const timing = timeStatements();
  const cpuBefore = { own: ownCpuSeconds(), sim: await world.sim.cpuSeconds(), pg: await postgresCpu(world.db.pool) };
  const report = await world.poller().runCycle();
  timing.stop();
  const simAfter = await world.sim.cpuSeconds();
  log(
    `\nCPU s poller / simulator / PostgreSQL: ${(ownCpuSeconds() - cpuBefore.own).toFixed(1)} / ${simAfter !== null && cpuBefore.sim !== null ? (simAfter - cpuBefore.sim).toFixed(1) : '-'} / ${cpuBetween(cpuBefore.pg, await postgresCpu(world.db.pool)).toFixed(1)}`,
  );
  return { report, totals: timing.totals };
}

/** Row updates of the whole run, all and HOT, of the two tables the cycle writes. */
async function reportUpdates(world: BenchWorld): Promise<void> {
  // Statistics reach the view within a second or so of each backend's last transaction.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const { rows: tables } = await world.db.pool.query(
    `SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname IN ('feed_items', 'engagement_states') ORDER BY relname`,
  );
  log(`updates (all / HOT, whole run): ${tables.map((row: { relname: string; n_tup_upd: string; n_tup_hot_upd: string }) => `${row.relname} ${row.n_tup_upd} / ${row.n_tup_hot_upd}`).join(', ')}`);
}

/** The cycle's report, then its statements by the time they took, longest first. */
function reportStatements(report: CycleReport, totals: StatementTotals): void {
  log(`\ncycle: ${(report.durationMs / 1000).toFixed(2)} s, phases ${JSON.stringify(report.phases)}, counts ${JSON.stringify(report.counts)}`);
  log('| statement | calls | ms (summed over parallel batches) |');
  log('|---|---|---|');
  for (const [key, entry] of [...totals].sort((a, b) => b[1].ms - a[1].ms)) log(`| ${key} | ${entry.calls} | ${entry.ms.toFixed(0)} |`);
}

async function main(): Promise<void> {
  log(`engagement worst-case profile: ${POSTS} posts; machine: ${machine()}`);
  const world = await createWorld({ posts: POSTS, accounts: 50, refreshSeconds: 60, simProcess: true });
  try {
    await addEngagement(world);
    const now = world.clock.now();
    await discoverAlone(world, now);
    await explainBatch(world, now);
    const { report, totals } = await measureCycle(world);
    await reportUpdates(world);
    reportStatements(report, totals);
  } finally {
    await world.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

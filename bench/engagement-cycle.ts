// One refresh cycle of 100,000 tracked posts: every post's counts read from X (1,000 lookups of 100 ids),
// written to the posts' states and to every tracking item whose values changed, changes detected.
//
//   npx tsx --tsconfig bench/tsconfig.json bench/engagement-cycle.ts
//
// Needs PostgreSQL (DATABASE_URL; the role must be able to CREATE DATABASE) and Redis (REDIS_URL); makes its
// own database and Redis prefix and removes them. The X simulator runs in a child process with its limits
// lifted. ENGAGEMENT_BENCH_POSTS changes the size; ENGAGEMENT_BENCH_CONCURRENCY the lookup batches in flight
// (default: the poller's); ENGAGEMENT_BENCH_FEED_FILLFACTOR=<n> overrides feed_items' fillfactor (85 by
// migration) before the items are stored.
// Goal: one cycle within 10 s on this machine. Cycles measured, on the same posts:
//   1. discovery of every post, and every post's counts new (all 100,000 items written): the worst case;
//   2. 2% of the posts changed (the steady state of engagement-calls.ts);
//   3. nothing changed.
// Baseline in the same run: the lookups alone (the same 1,000 counts-only calls the poller makes, nothing written), so
// the ratio shows what the database side adds to the time X takes to answer.
import { DEFAULT_POLLER_OPTIONS } from '@hashwatch/engagement-poller';
import { cpuBetween } from './bench-support';
import { createWorld, log, machine, ownCpuSeconds, pick, postgresCpu } from './engagement-support';

const POSTS = Number(process.env.ENGAGEMENT_BENCH_POSTS ?? 100_000);
const CONCURRENCY = Number(process.env.ENGAGEMENT_BENCH_CONCURRENCY ?? DEFAULT_POLLER_OPTIONS.lookupConcurrency);
// X is another machine in production: by default the simulator runs in a child process, so its serialising
// is not charged to the poller's event loop. ENGAGEMENT_BENCH_SIM=inprocess runs it in this process.
const SIM_PROCESS = process.env.ENGAGEMENT_BENCH_SIM !== 'inprocess';

async function main(): Promise<void> {
  log(`engagement refresh cycle: ${POSTS} tracked posts, ${CONCURRENCY} lookup batches in flight, simulator ${SIM_PROCESS ? 'in a child process' : 'in this process'}`);
  log(`machine: ${machine()}`);
  const setupStarted = Date.now();
  const world = await createWorld({ posts: POSTS, accounts: 50, refreshSeconds: 60, simProcess: SIM_PROCESS });
  log(`setup: ${((Date.now() - setupStarted) / 1000).toFixed(1)} s`);
  try {
    // Every post has engagement X reports only as counts (anonymous): the samples find no new accounts, so
    // the cycles measure counts; sampling is measured by engagement-calls.ts.
    await world.sim.addLikes(world.postIds.map((id, i) => ({ id, anonymous: 1 + (i % 50) })));
    await world.sim.addRetweets(world.postIds.filter((_, i) => i % 3 === 0).map((id, i) => ({ id, anonymous: 1 + (i % 7) })));

    // Baseline: the same lookups, nothing else.
    const x = world.xClient(`${world.prefix}:baseline`);
    let next = 0;
    const cpu = async () => ({ own: ownCpuSeconds(), sim: await world.sim.cpuSeconds(), pg: await postgresCpu(world.db.pool) });
    const cpuText = (before: Awaited<ReturnType<typeof cpu>>, after: Awaited<ReturnType<typeof cpu>>) =>
      `${(after.own - before.own).toFixed(1)} / ${after.sim !== null && before.sim !== null ? (after.sim - before.sim).toFixed(1) : 'in poller'} / ${cpuBetween(before.pg, after.pg).toFixed(1)}`;
    const baselineCpu = await cpu();
    const baselineStarted = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < POSTS) {
          const ids = world.postIds.slice(next, next + 100);
          next += 100;
          await x.postCounts(ids);
        }
      }),
    );
    const baselineSeconds = (Date.now() - baselineStarted) / 1000;
    log(`baseline, ${Math.ceil(POSTS / 100)} lookups alone: ${baselineSeconds.toFixed(2)} s; CPU s poller / simulator / PostgreSQL: ${cpuText(baselineCpu, await cpu())}`);

    const poller = world.poller({ lookupConcurrency: CONCURRENCY });
    const rows: string[] = [];
    const run = async (name: string) => {
      const lookupsBefore = (await world.calls()).posts_lookup ?? 0;
      const cpuBefore = await cpu();
      const report = await poller.runCycle();
      const cpuUsed = cpuText(cpuBefore, await cpu());
      const seconds = report.durationMs / 1000;
      const p = report.phases;
      rows.push(
        `| ${name} | ${seconds.toFixed(2)} | ${(seconds / baselineSeconds).toFixed(2)}x | ${((await world.calls()).posts_lookup ?? 0) - lookupsBefore} | ${report.discovered.posts} | ${report.counts.refreshed} | ${report.counts.changed} | ${report.counts.itemsWritten} | ${(p.discoveryMs / 1000).toFixed(2)} / ${(p.countsMs / 1000).toFixed(2)} / ${(p.samplesMs / 1000).toFixed(2)} / ${(p.relayMs / 1000).toFixed(2)} | ${cpuUsed} | ${seconds <= 10 ? 'yes' : 'no'} |`,
      );
    };
    await run('1. discovery + every count new');
    world.clock.advance(60_000);
    await world.sim.addLikes(pick(POSTS * 0.02, POSTS, 104_729).map((index) => ({ id: world.postIds[index] as string, anonymous: 1 })));
    await run('2. 2% of the posts changed');
    world.clock.advance(60_000);
    await run('3. nothing changed');

    log('');
    log('| cycle | seconds | vs lookups alone | lookups | posts discovered | posts refreshed | posts changed | items written | discovery / counts / samples / relay (s) | CPU s poller / simulator / PostgreSQL | within 10 s |');
    log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) log(row);
  } finally {
    await world.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

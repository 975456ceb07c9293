import { relayOutbox } from '@hashwatch/outbox';
import { resyncLimits, updatePlan } from '@hashwatch/plans';
import { cadenceSchedulerId, createRedisConnection, listSchedulers, upsertScheduler, type DefinedWorker, type QueueName, type RedisClient } from '@hashwatch/queues';
import { waitFor } from '@hashwatch/testing';
import { reconcileScanSchedulers } from './scan-schedulers';
import { startScannerWorkers } from './scanner-workers';
import { syncSources } from './sources/sync-sources';
import { useScannerFixture } from './test-support/scanner-fixture';

describe('reconcileScanSchedulers', () => {
  const fx = useScannerFixture();
  const ids = async () => (await listSchedulers(fx.queues, 'source-scans')).map((scheduler) => scheduler.id).sort();

  it('keeps one scheduler per cadence in use plus the fastest plan, and removes the ones nobody needs', async () => {
    // A scheduler left by an older view of the world.
    await upsertScheduler(fx.queues, 'source-scans', 'scan-sources', { intervalSeconds: 77 }, { schedulerId: cadenceSchedulerId('scan-sources', 77), everyMs: 77_000 });
    expect(await reconcileScanSchedulers(fx.pool(), fx.queues)).toEqual({ added: [10], removed: [77] });
    expect(await ids()).toEqual(['scan-sources-every-10s']);

    const fast = await fx.account({ scanIntervalSeconds: 3 });
    const slow = await fx.account({ plan: 'starter' });
    await fx.track(fast, 'quick');
    await fx.track(slow, 'calm');
    await syncSources(fx.pool());
    expect(await reconcileScanSchedulers(fx.pool(), fx.queues)).toEqual({ added: [3, 60], removed: [] });
    expect(await ids()).toEqual(['scan-sources-every-10s', 'scan-sources-every-3s', 'scan-sources-every-60s']);
    expect(await reconcileScanSchedulers(fx.pool(), fx.queues)).toEqual({ added: [], removed: [] });

    // The starter account stops tracking: its cadence goes. The fast account still has 3 s.
    await fx.pool().query('DELETE FROM tracks WHERE user_id = $1', [slow]);
    await syncSources(fx.pool());
    expect(await reconcileScanSchedulers(fx.pool(), fx.queues)).toEqual({ added: [], removed: [60] });
    expect(await ids()).toEqual(['scan-sources-every-10s', 'scan-sources-every-3s']);
  });

  it('moves a shared tag to the fastest cadence among the accounts tracking it', async () => {
    const starter = await fx.account({ plan: 'starter' });
    await fx.track(starter, 'shared');
    await syncSources(fx.pool());
    const business = await fx.account({ plan: 'business' });
    await fx.track(business, 'shared');
    await syncSources(fx.pool());
    const { rows } = await fx.pool().query(`SELECT interval_seconds FROM source_cursors WHERE source_key = 'tag:shared'`);
    expect(rows).toEqual([{ interval_seconds: 10 }]);
  });
});

describe('a faster scan cadence, with real workers and BullMQ schedulers', () => {
  const fx = useScannerFixture();
  const connections: RedisClient[] = [];
  const workers: DefinedWorker<QueueName>[] = [];
  const NEW_SECONDS = 2;
  const SLACK_MS = 400;

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.close()));
    for (const connection of connections.splice(0)) connection.disconnect();
    await updatePlan(fx.env.database.db.prisma, 'starter', { scanIntervalSeconds: 60 });
  });

  function startReplica(): void {
    const connection = createRedisConnection(fx.env.redisUrl, { role: 'worker' });
    connections.push(connection);
    workers.push(...startScannerWorkers({ pool: fx.pool(), queues: fx.queues, scanner: fx.scanner(), connection, prefix: fx.env.queuePrefix, logger: fx.logger }));
  }

  it('scans within one new period of plan:set then resync-limits (60 s to 2 s), then every 2 s within 10 %', async () => {
    const user = await fx.account({ plan: 'starter' });
    await fx.track(user, 'cadence');
    // A business account keeps a 10 s scheduler ticking at its own phase: it must not take the source early or late.
    await fx.track(await fx.account({ plan: 'business' }), 'other');
    const scans = () =>
      fx.sim.state.requestLog
        .entries({ endpoint: 'search_recent' })
        .filter((entry) => entry.query.next_token === undefined && String(entry.query.query).includes('#cadence'))
        .map((entry) => Date.parse(entry.at));

    startReplica();
    startReplica();
    await reconcileScanSchedulers(fx.pool(), fx.queues);
    await waitFor(() => scans().length >= 1, 10_000, 'the first scan at 60 s');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = scans().length;

    // What `npm run admin -- plan:set --plan starter --scan-interval 2` and POST /v1/me/resync-limits do.
    await updatePlan(fx.env.database.db.prisma, 'starter', { scanIntervalSeconds: NEW_SECONDS });
    await resyncLimits(fx.env.database.db.prisma, user);
    const changedAt = Date.now();
    // The notifier's relay (every second in production) hands the committed outbox rows to BullMQ.
    await relayOutbox(fx.pool(), fx.queues);

    await waitFor(() => scans().length > before, NEW_SECONDS * 1000 + SLACK_MS, 'a scan at the new cadence');
    expect((scans()[before] as number) - changedAt).toBeLessThanOrEqual(NEW_SECONDS * 1000 + SLACK_MS);

    const cycles = 11;
    await waitFor(() => scans().length >= before + cycles + 1, (cycles + 3) * NEW_SECONDS * 1000, `${cycles} more scans`);
    const times = scans().slice(before, before + cycles + 1);
    const gaps = times.slice(1).map((at, i) => at - (times[i] as number));
    // The scheduler's slots are fixed, so a tick a loaded machine runs late is followed by one that comes early: the
    // mean period holds to 5 %, each gap to 30 % (a wrong cadence fails both).
    const mean = ((times[cycles] as number) - (times[0] as number)) / cycles;
    expect(Math.abs(mean - NEW_SECONDS * 1000)).toBeLessThanOrEqual(NEW_SECONDS * 50);
    expect(gaps.filter((gap) => gap < NEW_SECONDS * 700 || gap > NEW_SECONDS * 1300)).toEqual([]);
  }, 60_000);
});

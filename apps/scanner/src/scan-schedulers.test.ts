import { cadenceSchedulerId, listSchedulers, upsertScheduler } from '@hashwatch/queues';
import { reconcileScanSchedulers } from './scan-schedulers';
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

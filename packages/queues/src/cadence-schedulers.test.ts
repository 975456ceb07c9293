import { reconcileCadenceSchedulers } from './cadence-schedulers';
import { listSchedulers, upsertScheduler } from './upsert-scheduler';
import { useQueueFixture } from './test-support/use-queue-fixture';

describe('reconcileCadenceSchedulers', () => {
  const fixture = useQueueFixture();
  const scans = { queue: 'source-scans', job: 'scan-sources' } as const;
  const ids = async () => (await listSchedulers(fixture.queues, 'source-scans')).map((scheduler) => scheduler.id).sort();

  it('adds one scheduler per wanted cadence, skipping repeats and values no schedule can have', async () => {
    expect(await reconcileCadenceSchedulers(fixture.queues, scans, [300, 60, 60, null, 0, 86_401])).toEqual({ added: [60, 300], removed: [] });
    expect(await ids()).toEqual(['scan-sources-every-300s', 'scan-sources-every-60s']);
    expect(await reconcileCadenceSchedulers(fixture.queues, scans, [60, 300])).toEqual({ added: [], removed: [] });
  });

  it("removes the cadences no longer wanted and leaves the queue's other schedulers alone", async () => {
    await reconcileCadenceSchedulers(fixture.queues, scans, [60, 120]);
    await upsertScheduler(fixture.queues, 'source-scans', 'reconcile-schedulers', {}, { schedulerId: 'reconcile-daily', everyMs: 86_400_000 });
    expect(await reconcileCadenceSchedulers(fixture.queues, scans, [120, 30])).toEqual({ added: [30], removed: [60] });
    expect(await ids()).toEqual(['reconcile-daily', 'scan-sources-every-120s', 'scan-sources-every-30s']);
  });
});

import { cadenceSchedulerId } from './job-id';
import { JobPayloadError } from './job-payload';
import { jobDueAt, listSchedulers, removeScheduler, tickLatenessMs, upsertScheduler } from './upsert-scheduler';
import { useQueueFixture } from './test-support/use-queue-fixture';

describe('upsertScheduler', () => {
  const fixture = useQueueFixture();

  it('leaves one scheduler when the same id is upserted twice, with the latest interval', async () => {
    const schedulerId = cadenceSchedulerId('scan-sources', 60);
    await upsertScheduler(fixture.queues, 'source-scans', 'scan-sources', { intervalSeconds: 60 }, { schedulerId, everyMs: 60_000 });
    await upsertScheduler(fixture.queues, 'source-scans', 'scan-sources', { intervalSeconds: 60 }, { schedulerId, everyMs: 30_000 });

    expect(await fixture.queues.byName['source-scans'].getJobSchedulersCount()).toBe(1);
    expect(await listSchedulers(fixture.queues, 'source-scans')).toEqual([
      { id: 'scan-sources-every-60s', jobName: 'scan-sources', everyMs: 30_000, next: expect.any(Number) },
    ]);
  });

  it('keeps one scheduler per distinct cadence and removes one no longer used', async () => {
    for (const seconds of [60, 180, 300]) {
      await upsertScheduler(fixture.queues, 'engagement-refreshes', 'refresh-engagement', { intervalSeconds: seconds }, {
        schedulerId: cadenceSchedulerId('refresh-engagement', seconds),
        everyMs: seconds * 1000,
      });
    }
    expect(await removeScheduler(fixture.queues, 'engagement-refreshes', 'refresh-engagement-every-180s')).toBe(true);
    expect(await removeScheduler(fixture.queues, 'engagement-refreshes', 'refresh-engagement-every-180s')).toBe(false);

    const ids = (await listSchedulers(fixture.queues, 'engagement-refreshes')).map((scheduler) => scheduler.id).sort();
    expect(ids).toEqual(['refresh-engagement-every-300s', 'refresh-engagement-every-60s']);
  });

  it('rejects a payload that does not parse and creates no scheduler', async () => {
    await expect(
      upsertScheduler(fixture.queues, 'outbox-relay', 'relay-outbox', { limit: 10 } as never, { schedulerId: 'relay-outbox', everyMs: 1000 }),
    ).rejects.toThrow(JobPayloadError);
    expect(await fixture.queues.byName['outbox-relay'].getJobSchedulersCount()).toBe(0);
  });

  it('adds the job on every interval, validated and retried per the catalog', async () => {
    const runs: number[] = [];
    fixture.startWorker('outbox-relay', {
      'relay-outbox': async (_payload, job) => {
        runs.push(job.opts.attempts ?? 0);
      },
    });
    await upsertScheduler(fixture.queues, 'outbox-relay', 'relay-outbox', {}, { schedulerId: 'relay-outbox-every-100ms', everyMs: 100 });
    const deadline = Date.now() + 5_000;
    while (runs.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    await removeScheduler(fixture.queues, 'outbox-relay', 'relay-outbox-every-100ms');

    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs[0]).toBe(1);
  });
});

describe('jobDueAt and tickLatenessMs', () => {
  it("read a scheduler iteration's slot from its id, and fall back to the time an ordinary job was added", () => {
    expect(jobDueAt({ id: 'repeat:scan-sources-every-2s:1795631783907', timestamp: 1795631783044 })).toBe(1795631783907);
    expect(jobDueAt({ id: 'sample-77', timestamp: 1795631783044 })).toBe(1795631783044);
  });

  it('measure how far a tick runs past the latest slot of its grid, also when it is intervals behind', () => {
    const job = { id: 'repeat:refresh-engagement-every-2s:1000000', timestamp: 999_000 };
    expect(tickLatenessMs(job, 2, 1_000_150)).toBe(150);
    expect(tickLatenessMs(job, 2, 1_002_000)).toBe(0);
    // 2.1 s behind: it works as of the next slot (1_002_000), not as of now, so what it schedules stays on the grid.
    expect(tickLatenessMs(job, 2, 1_002_100)).toBe(100);
    expect(tickLatenessMs(job, 2, 1_005_900)).toBe(1_900);
    expect(tickLatenessMs(job, 2, 999_990)).toBe(0);
  });

  it('measure an ordinary job from when it was added, and give 0 once it is a whole interval behind', () => {
    const job = { id: 'reconcile-1', timestamp: 1_000_000 };
    expect(tickLatenessMs(job, 2, 1_000_150)).toBe(150);
    expect(tickLatenessMs(job, 2, 1_002_100)).toBe(0);
  });
});

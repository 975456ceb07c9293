import { enqueue, enqueueBulk } from './enqueue';
import { JobPayloadError } from './job-payload';
import { routeAlertsJobId } from './job-id';
import { ROUTE_ALERTS_MAX_ITEMS } from './queue-catalog';
import { routeAlertItems, routeAlertsJobs } from './route-alert-batches';
import { useQueueFixture, waitForState } from './test-support/use-queue-fixture';

const items = (count: number, from = 0) => Array.from({ length: count }, (_, i) => ({ feedItemId: `post_${from + i}`, userId: `usr_${(from + i) % 3}` }));

describe('route-alerts jobs', () => {
  it('chunks items into jobs of at most 500, in order, and gives none for no items', () => {
    const jobs = routeAlertsJobs(items(1201));
    expect(jobs.map((job) => job.payload.items.length)).toEqual([500, 500, 201]);
    expect(jobs.flatMap((job) => job.payload.items)).toEqual(items(1201));
    expect(jobs.every((job) => job.queue === 'alert-routing' && job.name === 'route-alerts')).toBe(true);
    expect(routeAlertsJobs([])).toEqual([]);
    expect(routeAlertsJobs(items(5), 2).map((job) => job.payload.items.length)).toEqual([2, 2, 1]);
    expect(() => routeAlertsJobs(items(5), ROUTE_ALERTS_MAX_ITEMS + 1)).toThrow(RangeError);
  });

  it('derives each job id from its items alone: the same batch always gets the same id, another batch another', () => {
    const first = routeAlertsJobs(items(700));
    const again = routeAlertsJobs(items(700));
    expect(again.map((job) => job.jobId)).toEqual(first.map((job) => job.jobId));
    expect(first[0]?.jobId).toMatch(/^routes-post_0-500-[0-9a-f]{32}$/);
    expect(new Set(first.map((job) => job.jobId)).size).toBe(2);
    // Same first item and count, another item, user or order: another id.
    const base = items(3);
    const ids = [
      routeAlertsJobId(base),
      routeAlertsJobId([base[0]!, base[1]!, { feedItemId: 'post_9', userId: 'usr_2' }]),
      routeAlertsJobId([base[0]!, base[1]!, { ...base[2]!, userId: 'usr_other' }]),
      routeAlertsJobId([base[0]!, base[2]!, base[1]!]),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    expect(() => routeAlertsJobId([])).toThrow(RangeError);
  });

  it('reads the items a route-alerts job carries, and none from any other job', () => {
    const [job] = routeAlertsJobs(items(3));
    expect(routeAlertItems({ name: 'route-alerts', data: job!.payload })).toEqual(items(3));
    expect(routeAlertItems({ name: 'route-alert', data: { feedItemId: 'post_1', userId: 'usr_1' } })).toEqual([]);
    expect(routeAlertItems({ name: 'drain-channel', data: { items: items(2) } })).toEqual([]);
    expect(routeAlertItems({ name: 'route-alerts', data: null })).toEqual([]);
  });
});

describe('route-alerts payload', () => {
  const fixture = useQueueFixture();

  it('rejects malformed batches and adds nothing: empty, over 500 items, a bad item, an extra field', async () => {
    const malformed: unknown[] = [
      { items: [] },
      { items: items(ROUTE_ALERTS_MAX_ITEMS + 1) },
      { items: [...items(2), { feedItemId: 'usr_1', userId: 'usr_1' }] },
      { items: [{ feedItemId: 'post_1', userId: 'usr_1', text: 'hello' }] },
      { items: items(1), channelId: 'chn_1' },
      { feedItemId: 'post_1', userId: 'usr_1' },
    ];
    for (const [index, payload] of malformed.entries()) {
      await expect(enqueue(fixture.queues, 'alert-routing', 'route-alerts', payload as never, { jobId: `routes-bad-${index}` })).rejects.toThrow(JobPayloadError);
    }
    const invalid: string[] = [];
    await enqueueBulk(
      fixture.queues,
      malformed.map((payload, index) => ({ queueName: 'alert-routing', jobName: 'route-alerts', jobId: `routes-bulk-${index}`, payload })),
      (record) => invalid.push(record.jobId),
    );
    expect(invalid).toHaveLength(malformed.length);
    expect(await fixture.queues.byName['alert-routing'].getJobCountByTypes('waiting', 'prioritized', 'delayed')).toBe(0);
  });

  it('adds a batch of 500 items once, however often it is added, and runs it once', async () => {
    const [job] = routeAlertsJobs(items(500, 10_000));
    const records = [job!, job!].map((entry) => ({ queueName: entry.queue, jobName: entry.name, jobId: entry.jobId, payload: entry.payload }));
    await enqueueBulk(fixture.queues, records);
    await enqueueBulk(fixture.queues, records);
    const queue = fixture.queues.byName['alert-routing'];
    expect(await queue.getJobCountByTypes('waiting')).toBe(1);
    const seen: number[] = [];
    fixture.startWorker('alert-routing', {
      'route-alerts': async (payload) => {
        seen.push(payload.items.length);
      },
    });
    const done = await waitForState(queue, job!.jobId, 'completed');
    expect(done.opts.attempts).toBe(8);
    expect(seen).toEqual([500]);
  });
});

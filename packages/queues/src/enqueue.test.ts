import { createQueuePrefix, deletePrefixKeys } from '@hashwatch/testing';
import { createQueues } from './create-queues';
import { enqueue, enqueueBulk } from './enqueue';
import { JobIdError, jobId } from './job-id';
import { JobPayloadError } from './job-payload';
import { redisTarget, useQueueFixture, waitForState } from './test-support/use-queue-fixture';
import { createRedisConnection } from './redis-connection';

/** A routing job's id as tests name them: route-<feed item id>. */
const routeAlertJobId = (feedItemId: string) => jobId('route', feedItemId);

describe('enqueue', () => {
  const fixture = useQueueFixture();

  it('rejects a payload that does not match its schema and adds nothing', async () => {
    const queue = fixture.queues.byName['source-scans'];
    await expect(
      // @ts-expect-error intervalSeconds must be a number: the catalog types the payload
      enqueue(fixture.queues, 'source-scans', 'scan-sources', { intervalSeconds: '60' }, { jobId: 'scan-bad-type' }),
    ).rejects.toThrow(JobPayloadError);
    await expect(
      enqueue(fixture.queues, 'source-scans', 'scan-sources', { intervalSeconds: 0 }, { jobId: 'scan-bad-range' }),
    ).rejects.toThrow(/intervalSeconds/);
    expect(await queue.getJob('scan-bad-type')).toBeUndefined();
    expect(await queue.getJobCountByTypes('wait', 'delayed', 'prioritized')).toBe(0);
  });

  it('rejects a payload that carries more than ids (a row) and adds nothing', async () => {
    const adding = enqueue(
      fixture.queues,
      'alert-routing',
      'route-alerts',
      // @ts-expect-error payloads are strict: extra fields do not compile either
      { items: [{ feedItemId: 'post_abc', userId: 'usr_abc', text: 'hello', botToken: '123:ABC' }] },
      { jobId: routeAlertJobId('post_abc') },
    );
    await expect(adding).rejects.toThrow(JobPayloadError);
    await expect(adding).rejects.not.toThrow(/123:ABC/);
    expect(await fixture.queues.byName['alert-routing'].getJob('route-post_abc')).toBeUndefined();
  });

  it('rejects a job id containing ":" before BullMQ sees it', async () => {
    await expect(
      enqueue(fixture.queues, 'alert-deliveries', 'deliver-alert', { deliveryId: 'dlv_1' }, { jobId: 'deliver:dlv_1' }),
    ).rejects.toThrow(JobIdError);
  });

  it('stores the job with its catalog retry policy and bounded retention', async () => {
    const job = await enqueue(fixture.queues, 'alert-deliveries', 'deliver-alert', { deliveryId: 'dlv_policy' }, { jobId: 'deliver-dlv_policy', delay: 60_000 });
    expect(job.id).toBe('deliver-dlv_policy');
    expect(job.opts).toMatchObject({
      attempts: 15,
      backoff: { type: 'exponential', delay: 10_000 },
      delay: 60_000,
      removeOnComplete: { age: 86_400, count: 10_000 },
      removeOnFail: { age: 604_800, count: 50_000 },
    });
    expect(await job.getState()).toBe('delayed');
  });

  it('runs a job added twice with the same job id once', async () => {
    const queue = fixture.queues.byName['alert-routing'];
    const payload = { items: [{ feedItemId: 'post_twice', userId: 'usr_twice' }] };
    const first = await enqueue(fixture.queues, 'alert-routing', 'route-alerts', payload, { jobId: routeAlertJobId('post_twice') });
    const second = await enqueue(fixture.queues, 'alert-routing', 'route-alerts', payload, { jobId: routeAlertJobId('post_twice') });
    expect(second.id).toBe(first.id);
    expect(await queue.getJobCountByTypes('wait')).toBe(1);

    const seen: string[] = [];
    fixture.startWorker('alert-routing', {
      'route-alerts': async (data) => {
        seen.push(...data.items.map((item) => item.feedItemId));
      },
    });
    await waitForState(queue, 'route-post_twice', 'completed');
    // A third add after completion is still a no-op while the completed job is kept.
    await enqueue(fixture.queues, 'alert-routing', 'route-alerts', payload, { jobId: routeAlertJobId('post_twice') });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toEqual(['post_twice']);
  });

  it('keeps jobs of two prefixes on one Redis apart', async () => {
    const otherPrefix = createQueuePrefix();
    const otherConnection = createRedisConnection(redisTarget, { role: 'producer' });
    const other = createQueues({ connection: otherConnection, prefix: otherPrefix });
    try {
      await enqueue(other, 'alert-deliveries', 'deliver-alert', { deliveryId: 'dlv_other' }, { jobId: 'deliver-dlv_other' });
      const seen: string[] = [];
      fixture.startWorker('alert-deliveries', {
        'deliver-alert': async (data) => {
          seen.push(data.deliveryId);
        },
        'drain-channel': async () => undefined,
        'deliver-notice': async () => undefined,
      });
      await enqueue(fixture.queues, 'alert-deliveries', 'deliver-alert', { deliveryId: 'dlv_mine' }, { jobId: 'deliver-dlv_mine' });
      await waitForState(fixture.queues.byName['alert-deliveries'], 'deliver-dlv_mine', 'completed');

      expect(seen).toEqual(['dlv_mine']);
      expect(await fixture.queues.byName['alert-deliveries'].getJob('deliver-dlv_other')).toBeUndefined();
      expect(await (await other.byName['alert-deliveries'].getJob('deliver-dlv_other'))?.getState()).toBe('waiting');
    } finally {
      await other.close();
      await deletePrefixKeys(otherConnection, otherPrefix);
      await otherConnection.quit();
    }
  });
});

describe('enqueueBulk', () => {
  const fixture = useQueueFixture();

  it('adds every valid job with its catalog retry policy and reports each invalid one without adding it', async () => {
    const route = (n: number, payload: unknown = { items: [{ feedItemId: `post_${n}`, userId: 'usr_1' }] }) => ({
      queueName: 'alert-routing',
      jobName: 'route-alerts',
      jobId: routeAlertJobId(`post_${n}`),
      payload,
    });
    const invalid: [string, string][] = [];
    const records = [
      ...Array.from({ length: 1500 }, (_, i) => route(i)),
      route(2000, { items: [{ feedItemId: 7 }] }),
      { ...route(2001), queueName: 'nope' },
      { ...route(2002), jobId: 'a:b' },
      { queueName: 'outbox-relay', jobName: 'toString', payload: {}, jobId: 'relay-x' },
      { queueName: 'engagement-refreshes', jobName: 'sample-engagement', payload: { xPostId: '1893456789012345678' }, jobId: 'sample-bulk-1' },
    ];
    await enqueueBulk(fixture.queues, records, (record, error) => invalid.push([record.jobId, error.name]));
    expect(invalid).toEqual([
      [routeAlertJobId('post_2000'), 'JobPayloadError'],
      [routeAlertJobId('post_2001'), 'UnknownJobError'],
      ['a:b', 'JobIdError'],
      ['relay-x', 'UnknownJobError'],
    ]);
    expect(await fixture.queues.byName['alert-routing'].getJobCountByTypes('waiting', 'prioritized', 'delayed')).toBe(1500);
    expect((await fixture.queues.byName['alert-routing'].getJob(routeAlertJobId('post_1499')))?.data).toEqual({ items: [{ feedItemId: 'post_1499', userId: 'usr_1' }] });
    const sample = await fixture.queues.byName['engagement-refreshes'].getJob('sample-bulk-1');
    expect(sample?.name).toBe('sample-engagement');
    expect(sample?.opts.attempts).toBe(3);
  });
});

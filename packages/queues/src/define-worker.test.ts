import { UnrecoverableError } from 'bullmq';
import { enqueue } from './enqueue';
import { createRedisConnection } from './redis-connection';
import { defineWorker, STALL_DETECTION } from './define-worker';
import { redisTarget, untilReady, useQueueFixture, waitForState } from './test-support/use-queue-fixture';

describe('defineWorker', () => {
  const fixture = useQueueFixture();

  it('hands the handler the parsed payload and a job logger, and completes the job', async () => {
    const received: { intervalSeconds: number }[] = [];
    fixture.startWorker('source-scans', {
      'scan-sources': async (payload, job, log) => {
        received.push(payload);
        log.info('sources scanned', { sources: 3 });
        return { scanned: 3, name: job.name };
      },
      'reconcile-schedulers': async () => undefined,
    });
    await enqueue(fixture.queues, 'source-scans', 'scan-sources', { intervalSeconds: 30 }, { jobId: 'scan-typed' });
    const job = await waitForState(fixture.queues.byName['source-scans'], 'scan-typed', 'completed');

    expect(received).toEqual([{ intervalSeconds: 30 }]);
    expect(job.returnvalue).toEqual({ scanned: 3, name: 'scan-sources' });
    const jobFields = { queue: 'source-scans', job: 'scan-sources', jobId: 'scan-typed', attempt: 1 };
    expect(fixture.logLines).toContainEqual(expect.objectContaining({ message: 'sources scanned', sources: 3, ...jobFields }));
    expect(fixture.logLines).toContainEqual(expect.objectContaining({ level: 'debug', message: 'job completed', durationMs: expect.any(Number), ...jobFields }));
  });

  it('fails a malformed job added around enqueue at once, without retry', async () => {
    const handled: unknown[] = [];
    fixture.startWorker('alert-routing', {
      'route-alerts': async (payload) => {
        handled.push(payload);
      },
    });
    const queue = fixture.queues.byName['alert-routing'];
    // Raw adds with retries allowed: only the worker's check stands between these payloads and the handlers.
    await queue.add('route-alerts', { items: [{ feedItemId: 42, userId: 'usr_1' }] } as never, { jobId: 'route-malformed', attempts: 5, backoff: 10 });
    await queue.add('route-alerts', { items: [{ feedItemId: 'post_1', userId: 'usr_1' }, { feedItemId: 'post_2' }] } as never, {
      jobId: 'routes-malformed',
      attempts: 5,
      backoff: 10,
    });
    const job = await waitForState(queue, 'route-malformed', 'failed');
    const batch = await waitForState(queue, 'routes-malformed', 'failed');

    expect(handled).toEqual([]);
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/feedItemId/);
    expect(batch.attemptsMade).toBe(1);
    expect(batch.failedReason).toMatch(/items\.1\.userId/);
    expect(fixture.logLines).toContainEqual(expect.objectContaining({ message: 'job rejected', jobId: 'route-malformed', level: 'error' }));
  });

  it('fails a job whose name the catalog does not declare, without retry', async () => {
    fixture.startWorker('outbox-relay', { 'relay-outbox': async () => undefined });
    const queue = fixture.queues.byName['outbox-relay'];
    await queue.add('relay-everything' as never, {}, { jobId: 'relay-unknown', attempts: 5, backoff: 10 });
    const job = await waitForState(queue, 'relay-unknown', 'failed');

    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/no job named relay-everything/);
  });

  it('retries a job whose handler throws an ordinary error', async () => {
    let calls = 0;
    fixture.startWorker('engagement-refreshes', {
      'refresh-engagement': async () => undefined,
      'reconcile-schedulers': async () => undefined,
      'sample-engagement': async () => {
        calls += 1;
        if (calls === 1) throw new Error('upstream timed out');
      },
    });
    const queue = fixture.queues.byName['engagement-refreshes'];
    await queue.add('sample-engagement', { xPostId: '77' }, { jobId: 'sample-77-retry', attempts: 3, backoff: 10 });
    const job = await waitForState(queue, 'sample-77-retry', 'completed');

    expect(calls).toBe(2);
    expect(job.attemptsMade).toBe(2);
    expect(fixture.logLines).toContainEqual(expect.objectContaining({ message: 'job will retry', attempt: 1 }));
  });

  it('fails a job whose handler throws UnrecoverableError, without retry', async () => {
    fixture.startWorker('alert-deliveries', {
      'deliver-alert': async () => {
        throw new UnrecoverableError('channel disabled');
      },
      'drain-channel': async () => undefined,
      'deliver-notice': async () => undefined,
    });
    await enqueue(fixture.queues, 'alert-deliveries', 'deliver-alert', { deliveryId: 'dlv_gone' }, { jobId: 'deliver-dlv_gone' });
    const job = await waitForState(fixture.queues.byName['alert-deliveries'], 'deliver-dlv_gone', 'failed');

    expect(job.attemptsMade).toBe(1);
    expect(fixture.logLines).toContainEqual(expect.objectContaining({ message: 'job failed', jobId: 'deliver-dlv_gone' }));
  });

  it('refuses a producer connection, whose blocking reads could give up during a reconnect', async () => {
    const producer = createRedisConnection(redisTarget, { role: 'producer' });
    await untilReady(producer);
    try {
      expect(() =>
        defineWorker('outbox-relay', { 'relay-outbox': async () => undefined }, { connection: producer, prefix: fixture.prefix, concurrency: 1, logger: fixture.logger }),
      ).toThrow(/maxRetriesPerRequest/);
    } finally {
      await producer.quit();
    }
  });

  it('hands the job of a worker that died mid-run to another within 10 s, and still after a second one', async () => {
    const queue = fixture.queues.byName['outbox-relay'];
    const starts: string[] = [];
    // A dying replica: its handler never ends, then it is closed by force, so its lock is never renewed or freed.
    const dying = async (label: string) => {
      const connection = createRedisConnection(redisTarget, { role: 'worker' });
      const worker = defineWorker(
        'outbox-relay',
        {
          'relay-outbox': () => {
            starts.push(label);
            return new Promise(() => undefined);
          },
        },
        { connection, prefix: fixture.prefix, concurrency: 1, logger: fixture.logger },
      );
      await waitFor(() => starts.includes(label), 15_000);
      await worker.worker.close(true);
      connection.disconnect();
      return Date.now();
    };
    const waitFor = async (done: () => boolean, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms; starts: ${starts.join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    await queue.add('relay-outbox', {}, { jobId: 'relay-stalled' });
    await dying('first');
    const diedAt = await dying('second');
    fixture.startWorker('outbox-relay', {
      'relay-outbox': async () => {
        starts.push('survivor');
      },
    });
    const job = await waitForState(queue, 'relay-stalled', 'completed');

    expect(starts).toEqual(['first', 'second', 'survivor']);
    expect(Date.now() - diedAt).toBeLessThan(STALL_DETECTION.lockDuration + STALL_DETECTION.stalledInterval + 2_000);
    expect(job.stalledCounter).toBe(2);
    expect(fixture.logLines).toContainEqual(expect.objectContaining({ message: 'job stalled', queue: 'outbox-relay', jobId: 'relay-stalled' }));
  }, 40_000);
});

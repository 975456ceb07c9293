import { enqueue } from './enqueue';
import { jobWaitSeconds } from './define-worker';
import { useQueueFixture, waitForState } from './test-support/use-queue-fixture';

describe('jobWaitSeconds', () => {
  it('counts from when the job was due, never below zero, and leaves retries out', () => {
    expect(jobWaitSeconds({ timestamp: 1_000, delay: 0, attemptsMade: 0 }, 3_500)).toBe(2.5);
    expect(jobWaitSeconds({ timestamp: 1_000, delay: 2_000, attemptsMade: 0 }, 3_500)).toBe(0.5);
    expect(jobWaitSeconds({ timestamp: 1_000, delay: 5_000, attemptsMade: 0 }, 3_500)).toBe(0);
    expect(jobWaitSeconds({ timestamp: 1_000, delay: 0, attemptsMade: 1 }, 3_500)).toBeNull();
  });
});

describe('defineWorker metrics', () => {
  const fixture = useQueueFixture();

  it('reports the wait of each job taken, and keeps BullMQ per-minute counts', async () => {
    const waits: { queue: string; seconds: number }[] = [];
    // Added before any worker runs: it waits at least the 300 ms before the worker starts. `added` is read before
    // the add, whose job is stamped while it is sent (a first command on a cluster may take a while to answer).
    const added = Date.now();
    await enqueue(fixture.queues, 'outbox-relay', 'relay-outbox', {}, { jobId: 'relay-waiting' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    fixture.startWorker(
      'outbox-relay',
      { 'relay-outbox': async () => undefined },
      1,
      { observeWait: (queue, seconds) => waits.push({ queue, seconds }) },
    );
    const queue = fixture.queues.byName['outbox-relay'];
    await waitForState(queue, 'relay-waiting', 'completed');
    const elapsed = (Date.now() - added) / 1000;

    expect(waits).toHaveLength(1);
    expect(waits[0]!.queue).toBe('outbox-relay');
    expect(waits[0]!.seconds).toBeGreaterThanOrEqual(0.29);
    expect(waits[0]!.seconds).toBeLessThanOrEqual(elapsed);
    const completed = await queue.getMetrics('completed');
    expect(completed.meta.count).toBe(1);
  });
});

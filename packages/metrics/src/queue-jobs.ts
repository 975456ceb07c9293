import { Gauge, type Registry } from 'prom-client';

/** The job states the backlog gauge reports, as BullMQ's getJobCounts names them. */
export const QUEUE_JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed', 'completed'] as const;

export interface QueueJobCounts {
  /** The queue's label value: a catalog name. */
  readonly name: string;
  /** BullMQ's `queue.getJobCounts(...states)`. */
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
}

/**
 * `hashwatch_queue_jobs{queue,state}`: every queue's job counts, read from Redis when Prometheus scrapes, so
 * the value is the backlog of the whole deployment whichever replica serves it. A queue Redis could not
 * answer for is left out of that scrape (and `onError` hears why) rather than failing the whole page.
 */
export function queueJobsMetric(registry: Registry, queues: readonly QueueJobCounts[], onError: (queue: string, error: unknown) => void) {
  return new Gauge({
    name: 'hashwatch_queue_jobs',
    help: `Jobs in each queue by state (${QUEUE_JOB_STATES.join(', ')}), read from Redis at scrape time.`,
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const answers = await Promise.allSettled(queues.map((queue) => queue.getJobCounts(...QUEUE_JOB_STATES)));
      answers.forEach((answer, index) => {
        const queue = (queues[index] as QueueJobCounts).name;
        if (answer.status === 'rejected') return onError(queue, answer.reason);
        for (const state of QUEUE_JOB_STATES) this.set({ queue, state }, answer.value[state] ?? 0);
      });
    },
  });
}

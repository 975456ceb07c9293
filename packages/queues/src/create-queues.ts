import { Queue, type DefaultJobOptions } from 'bullmq';
import type { Logger } from '@hashwatch/logger';
import { queueKeyPrefix } from './queue-keys';
import type { RedisClient } from './redis-connection';
import { queueNames, type JobName, type QueueJobData, type QueueName } from './queue-catalog';

/** A BullMQ Queue typed from the catalog: its data is any payload of the queue, its names the queue's jobs. */
export type CatalogQueue<Q extends QueueName> = Queue<QueueJobData<Q>, unknown, JobName<Q>>;

export interface Queues {
  /** The QUEUE_PREFIX every key of these queues lives under. */
  readonly prefix: string;
  readonly byName: { readonly [Q in QueueName]: CatalogQueue<Q> };
  /** Closes every queue. The connection stays open: whoever created it closes it. */
  close(): Promise<void>;
}

/**
 * Applied to every job unless its catalog entry says otherwise. Finished jobs are kept for a while because
 * a kept job is what makes a repeated job id a no-op; counts bound the memory they take.
 */
export const defaultJobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1_000, jitter: 0.2 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 50_000 },
} satisfies DefaultJobOptions;

/**
 * One BullMQ Queue per catalog queue, all sharing `connection` (use a `producer` connection) and all
 * under `prefix` (each in its own hash slot: queue-keys.ts), so suites with different prefixes on one Redis never see each other's jobs.
 */
export function createQueues(options: { connection: RedisClient; prefix: string; logger?: Logger }): Queues {
  const { connection, prefix, logger } = options;
  const make = <Q extends QueueName>(name: Q): CatalogQueue<Q> => {
    const queue = new Queue<QueueJobData<Q>, unknown, JobName<Q>>(name, { connection, prefix: queueKeyPrefix(prefix, name), defaultJobOptions });
    // A Queue with no 'error' listener writes each Redis error to the console itself.
    queue.on('error', (error) => logger?.warn('queue error', { queue: name, error }));
    return queue;
  };
  const byName: { [Q in QueueName]: CatalogQueue<Q> } = {
    'source-scans': make('source-scans'),
    'alert-routing': make('alert-routing'),
    'alert-deliveries': make('alert-deliveries'),
    'engagement-refreshes': make('engagement-refreshes'),
    'outbox-relay': make('outbox-relay'),
    maintenance: make('maintenance'),
  };
  return {
    prefix,
    byName,
    async close() {
      await Promise.all(queueNames.map((name) => byName[name].close()));
    },
  };
}

import type { Job, Queue } from 'bullmq';
import { captureLogger, createQueuePrefix, deletePrefixKeys, redisTargetFromEnv } from '@hashwatch/testing';
import type { Logger } from '@hashwatch/logger';
import { createQueues, type Queues } from '../create-queues';
import { defineWorker, type DefinedWorker, type DefineWorkerOptions, type JobHandlers } from '../define-worker';
import type { QueueName } from '../queue-catalog';
import { createRedisConnection, untilReady, type RedisClient } from '../redis-connection';

/** The Redis these tests run on: a cluster when `REDIS_CLUSTER_NODES` is set. */
export const redisTarget = redisTargetFromEnv();

export { untilReady };

export interface QueueFixture {
  readonly prefix: string;
  readonly queues: Queues;
  readonly producer: RedisClient;
  readonly logger: Logger;
  readonly logLines: Record<string, unknown>[];
  /** Starts a worker on this file's prefix; it is closed after the test. */
  startWorker<Q extends QueueName>(queueName: Q, handlers: JobHandlers<Q>, concurrency?: number, extra?: Pick<DefineWorkerOptions, 'observeWait'>): DefinedWorker<Q>;
}

/**
 * Hooks giving a test file its own QUEUE_PREFIX, a producer and a worker connection, and the catalog's queues;
 * afterwards every worker, queue and connection is closed and only this prefix's keys are deleted.
 */
export function useQueueFixture(prefix = createQueuePrefix()): QueueFixture {
  const { logger, lines } = captureLogger('queues-test');
  const workers: DefinedWorker<QueueName>[] = [];
  let producer: RedisClient | undefined;
  let workerConnection: RedisClient | undefined;
  let queues: Queues | undefined;

  beforeAll(async () => {
    producer = createRedisConnection(redisTarget, { role: 'producer' });
    workerConnection = createRedisConnection(redisTarget, { role: 'worker' });
    queues = createQueues({ connection: producer, prefix });
    // A producer refuses commands until its first connect (enableOfflineQueue: false).
    await untilReady(producer);
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.close()));
    lines.length = 0;
  });

  afterAll(async () => {
    await queues?.close();
    if (producer) await deletePrefixKeys(producer, prefix);
    await producer?.quit();
    await workerConnection?.quit();
  });

  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the queue fixture is only available inside tests and hooks');
    return value;
  };
  return {
    prefix,
    get queues() {
      return ready(queues);
    },
    get producer() {
      return ready(producer);
    },
    logger,
    logLines: lines,
    startWorker(queueName, handlers, concurrency = 1, extra = {}) {
      const worker = defineWorker(queueName, handlers, { connection: ready(workerConnection), prefix, concurrency, logger, ...extra });
      workers.push(worker as DefinedWorker<QueueName>);
      return worker;
    },
  };
}

/** Polls until the job reaches `state` (BullMQ has no promise for it without a QueueEvents connection). */
export async function waitForState(queue: Queue, jobId: string, state: 'completed' | 'failed', timeoutMs = 10_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // State first, then the job: a job read before it finished would show stale attempt counts.
    if ((await queue.getJobState(jobId)) === state) {
      const job = await queue.getJob(jobId);
      if (job) return job;
    }
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not reach ${state} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

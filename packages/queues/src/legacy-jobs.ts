import { Queue, type Job, type JobsOptions, type JobType } from 'bullmq';
import { Cluster } from 'ioredis';
import type { Logger } from '@hashwatch/logger';
import type { Queues } from './create-queues';
import { queueNames, type QueueName } from './queue-catalog';
import type { RedisClient } from './redis-connection';

// Jobs that have yet to run. Completed and failed ones stay where they are, for inspection, until their age ends.
const PENDING: JobType[] = ['wait', 'prioritized', 'delayed', 'active'];
const PAGE = 500;

/**
 * Before queues were hash-tagged (queue-keys.ts) a queue's keys were `<QUEUE_PREFIX>:<queue>:…`. An upgrade
 * leaves the jobs waiting there (route-alerts relayed from the outbox, delayed retries, delayed deliveries): this
 * moves each pending job to the queue's keys now, under the same job id, with its due time, priority and the
 * attempts it has left, then removes it from the old keys. Jobs of a job scheduler are dropped with their
 * scheduler: every app upserts its schedulers at start-up under the new layout. A job still locked by a running
 * replica of the former version is left for a later start. Safe to run on any number of replicas at once and
 * again: adding an existing job id is a no-op, and a job is removed from the old keys only after it was added.
 * On a Redis Cluster there is nothing to move (the former layout cannot run there), so nothing is read.
 */
export async function moveLegacyJobs(queues: Queues, connection: RedisClient, logger?: Logger): Promise<number> {
  if (connection instanceof Cluster) return 0;
  let moved = 0;
  for (const name of queueNames) moved += await moveQueue(queues, connection, name, logger);
  return moved;
}

/** Whether BullMQ ever used `name` under the former layout: it has its `meta`, `id` or `repeat` key there. */
async function usedFormerly(queues: Queues, connection: RedisClient, name: QueueName): Promise<boolean> {
  return (await connection.exists(`${queues.prefix}:${name}:meta`, `${queues.prefix}:${name}:id`, `${queues.prefix}:${name}:repeat`)) > 0;
}

/**
 * The queues of the former key layout that still hold keys, as BullMQ Queues on `connection` (close them), for the
 * queue console: their failed jobs are not moved (moveLegacyJobs moves pending ones only), so an operator sees them
 * there, and a retry puts a job back among the pending ones, which the next move takes to the queue it runs from.
 * Cleaning such a queue from the console ends its checks. Empty on a Redis Cluster, where that layout never ran.
 */
export async function formerLayoutQueues(queues: Queues, connection: RedisClient): Promise<Queue[]> {
  if (connection instanceof Cluster) return [];
  const found: Queue[] = [];
  for (const name of queueNames) {
    if (await usedFormerly(queues, connection, name)) found.push(new Queue(name, { connection, prefix: queues.prefix }));
  }
  return found;
}

async function moveQueue(queues: Queues, connection: RedisClient, name: QueueName, logger?: Logger): Promise<number> {
  // Cheap check first.
  if (!(await usedFormerly(queues, connection, name))) return 0;
  const legacy = new Queue(name, { connection, prefix: queues.prefix });
  legacy.on('error', (error) => logger?.warn('queue error', { queue: name, error }));
  try {
    let moved = 0;
    for (const scheduler of await legacy.getJobSchedulers()) await legacy.removeJobScheduler(scheduler.key);
    for (;;) {
      const jobs = await legacy.getJobs(PENDING, 0, PAGE - 1, true);
      let progressed = 0;
      for (const job of jobs) {
        if (await moveJob(queues, connection, legacy, name, job)) progressed += 1;
      }
      moved += progressed;
      if (jobs.length < PAGE || progressed === 0) break;
    }
    if (moved > 0) logger?.info('moved jobs from the former key layout', { queue: name, moved });
    return moved;
  } finally {
    await legacy.close();
  }
}

async function moveJob(queues: Queues, connection: RedisClient, legacy: Queue, name: QueueName, job: Job): Promise<boolean> {
  if (job.id === undefined) return false;
  // Running on a replica of the former version (its lock is held): it finishes there, and is not added twice.
  if ((await connection.exists(`${legacy.qualifiedName}:${job.id}:lock`)) === 1) return false;
  if (!job.repeatJobKey) {
    const dueAt = await dueTime(connection, legacy, job);
    const attempts = Math.max(1, (job.opts.attempts ?? 1) - job.attemptsMade);
    const { repeatJobKey: _key, delay: _delay, ...rest } = job.opts;
    const opts: JobsOptions = { ...rest, jobId: job.id, attempts, delay: Math.max(0, dueAt - Date.now()) };
    // The catalog's types name each queue's jobs; a moved job keeps the name and data it was added with.
    await (queues.byName[name] as unknown as Queue).add(job.name, job.data, opts);
  }
  try {
    await job.remove();
    return true;
  } catch {
    // Taken by a replica of the former version since: added above under its id, so it runs at most once more.
    return false;
  }
}

/** When a delayed job falls due (the score of the delayed set); any other pending job is due now. */
async function dueTime(connection: RedisClient, legacy: Queue, job: Job): Promise<number> {
  const score = await connection.zscore(`${legacy.qualifiedName}:delayed`, job.id ?? '');
  // BullMQ scores a delayed job as its due time times 4096 plus a counter.
  return score === null ? Date.now() : Math.floor(Number(score) / 0x1000);
}

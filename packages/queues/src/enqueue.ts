import type { Job, Queue } from 'bullmq';
import type { Queues } from './create-queues';
import { assertJobId } from './job-id';
import { parseJobPayload, UnknownJobError } from './job-payload';
import { isQueueName, type JobDefinition, type JobName, type JobPayload, type QueueJobData, type QueueName } from './queue-catalog';

export interface EnqueueOptions {
  /** The idempotency key: while a job with this id is kept, adding it again does nothing. No ':'. */
  jobId: string;
  /** Milliseconds before the job may run. */
  delay?: number;
  /** BullMQ priority: 1 runs first, higher numbers later; omitted jobs run before prioritised ones. */
  priority?: number;
}

/** A job stored by name, as in an outbox_jobs row: checked against the catalog at run time. */
export interface JobRecord extends EnqueueOptions {
  queueName: string;
  jobName: string;
  payload: unknown;
}

/** The catalog's retry policy for one job, in BullMQ's terms. */
export function retryOptions(definition: JobDefinition): { attempts: number; backoff: { type: 'exponential'; delay: number; jitter: number } } {
  return { attempts: definition.attempts, backoff: { type: 'exponential', delay: definition.backoffMs, jitter: 0.2 } };
}

/**
 * Adds one job after validating its payload against the catalog; an invalid payload throws
 * JobPayloadError and adds nothing. Adding a job id that is still kept returns the existing job.
 */
export async function enqueue<Q extends QueueName, J extends JobName<Q>>(
  queues: Queues,
  queueName: Q,
  jobName: J,
  payload: JobPayload<Q, J>,
  options: EnqueueOptions,
): Promise<Job<QueueJobData<Q>, unknown, JobName<Q>>> {
  const job = await enqueueRecord(queues, { queueName, jobName, payload, ...options });
  return job as Job<QueueJobData<Q>, unknown, JobName<Q>>;
}

/**
 * {@link enqueue} for names known only at run time (the outbox relay): an unknown queue or job throws
 * UnknownJobError, an invalid payload JobPayloadError.
 */
export async function enqueueRecord(queues: Queues, record: JobRecord): Promise<Job> {
  const { queueName, jobName, payload, jobId, delay, priority } = record;
  if (!isQueueName(queueName)) throw new UnknownJobError(queueName, jobName);
  const { definition, data } = parseJobPayload(queueName, jobName, payload);
  assertJobId(jobId);
  // The catalog already tied name to payload; BullMQ's per-queue generics cannot express that pairing.
  const queue = queues.byName[queueName] as unknown as Queue<unknown, unknown, string>;
  return queue.add(jobName, data, {
    jobId,
    ...retryOptions(definition),
    ...(delay !== undefined && { delay }),
    ...(priority !== undefined && { priority }),
  });
}

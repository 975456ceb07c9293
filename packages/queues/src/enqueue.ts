import type { Job, Queue } from 'bullmq';
import type { Queues } from './create-queues';
import { assertJobId, JobIdError } from './job-id';
import { JobPayloadError, parseJobPayload, UnknownJobError } from './job-payload';
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
  const job = prepareJob({ queueName, jobName, payload, ...options });
  const added = await untyped(queues, job.queueName).add(job.name, job.data, job.opts);
  return added as Job<QueueJobData<Q>, unknown, JobName<Q>>;
}

/** A job checked against the catalog, in BullMQ's terms: what `add` and `addBulk` take. */
interface PreparedJob {
  queueName: QueueName;
  name: string;
  data: unknown;
  opts: { jobId: string; delay?: number; priority?: number } & ReturnType<typeof retryOptions>;
}

/**
 * Checks a job stored by name against the catalog: an unknown queue or job throws UnknownJobError, an invalid
 * payload JobPayloadError, an invalid id JobIdError (see {@link isInvalidJobError}).
 */
function prepareJob(record: JobRecord): PreparedJob {
  const { queueName, jobName, payload, jobId, delay, priority } = record;
  if (!isQueueName(queueName)) throw new UnknownJobError(queueName, jobName);
  const { definition, data } = parseJobPayload(queueName, jobName, payload);
  assertJobId(jobId);
  return {
    queueName,
    name: jobName,
    data,
    opts: { jobId, ...retryOptions(definition), ...(delay !== undefined && { delay }), ...(priority !== undefined && { priority }) },
  };
}

/** The job itself is wrong (queue, name, payload or id), so adding it again can never succeed. */
function isInvalidJobError(error: unknown): error is UnknownJobError | JobPayloadError | JobIdError {
  return error instanceof UnknownJobError || error instanceof JobPayloadError || error instanceof JobIdError;
}

// The catalog already tied name to payload; BullMQ's per-queue generics cannot express that pairing.
function untyped(queues: Queues, queueName: QueueName): Queue<unknown, unknown, string> {
  return queues.byName[queueName] as unknown as Queue<unknown, unknown, string>;
}

// BullMQ's addBulk writes a chunk of jobs in one MULTI. Measured, it was no faster than adding the same jobs
// concurrently; it is kept because it is one call per queue and chunk, not because it is quicker.
const BULK_CHUNK = 1000;

/**
 * Adds many jobs stored by name (the outbox relay's), one `addBulk` per queue and 1,000 jobs, all at once. A
 * job that does not check out ({@link isInvalidJobError}) adds nothing and goes to `onInvalid`; the others
 * are still added. Resolves once every add has. Adding a job id that is still kept adds nothing.
 */
export async function enqueueBulk(queues: Queues, records: readonly JobRecord[], onInvalid?: (record: JobRecord, error: Error) => void): Promise<void> {
  const byQueue = new Map<QueueName, PreparedJob[]>();
  for (const record of records) {
    let job: PreparedJob;
    try {
      job = prepareJob(record);
    } catch (error) {
      if (!isInvalidJobError(error)) throw error;
      onInvalid?.(record, error);
      continue;
    }
    const jobs = byQueue.get(job.queueName) ?? [];
    jobs.push(job);
    byQueue.set(job.queueName, jobs);
  }
  const adds: Promise<unknown>[] = [];
  for (const [queueName, jobs] of byQueue) {
    const queue = untyped(queues, queueName);
    for (let start = 0; start < jobs.length; start += BULK_CHUNK) adds.push(queue.addBulk(jobs.slice(start, start + BULK_CHUNK)));
  }
  await Promise.all(adds);
}

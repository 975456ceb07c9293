import type { Job, Queue } from 'bullmq';
import { defaultJobOptions, type Queues } from './create-queues';
import { retryOptions } from './enqueue';
import { assertJobId } from './job-id';
import { parseJobPayload } from './job-payload';
import type { JobName, JobPayload, QueueName } from './queue-catalog';

export interface SchedulerOptions {
  /** Stable id of the scheduler (see cadenceSchedulerId); upserting the same id replaces it. No ':'. */
  schedulerId: string;
  /** Milliseconds between runs. */
  everyMs: number;
}

export interface SchedulerInfo {
  id: string;
  jobName: string;
  everyMs: number | undefined;
  /** Unix milliseconds of the next run, when known. */
  next: number | undefined;
}

function untyped(queues: Queues, queueName: QueueName): Queue<unknown, unknown, string> {
  return queues.byName[queueName] as unknown as Queue<unknown, unknown, string>;
}

/**
 * Creates or replaces a BullMQ job scheduler that adds `jobName` with `payload` every `everyMs`.
 * Safe to call from every replica at start-up: the same id always leaves exactly one scheduler.
 */
export async function upsertScheduler<Q extends QueueName, J extends JobName<Q>>(
  queues: Queues,
  queueName: Q,
  jobName: J,
  payload: JobPayload<Q, J>,
  options: SchedulerOptions,
): Promise<void> {
  const { definition, data } = parseJobPayload(queueName, jobName, payload);
  assertJobId(options.schedulerId);
  if (!Number.isInteger(options.everyMs) || options.everyMs < 1) {
    throw new RangeError(`everyMs must be a positive integer, got ${options.everyMs}`);
  }
  await untyped(queues, queueName).upsertJobScheduler(
    options.schedulerId,
    { every: options.everyMs },
    {
      name: jobName,
      data,
      opts: {
        removeOnComplete: defaultJobOptions.removeOnComplete,
        removeOnFail: defaultJobOptions.removeOnFail,
        ...retryOptions(definition),
      },
    },
  );
}

/** Removes one scheduler (a cadence no account uses any more); false when it did not exist. */
export async function removeScheduler(queues: Queues, queueName: QueueName, schedulerId: string): Promise<boolean> {
  return untyped(queues, queueName).removeJobScheduler(schedulerId);
}

/** Every scheduler of one queue, so a caller can reconcile them with the cadences in use. */
export async function listSchedulers(queues: Queues, queueName: QueueName): Promise<SchedulerInfo[]> {
  const schedulers = await untyped(queues, queueName).getJobSchedulers(0, -1, true);
  return schedulers.map((scheduler) => ({
    id: scheduler.key,
    jobName: scheduler.name,
    everyMs: scheduler.every,
    next: scheduler.next,
  }));
}

// BullMQ names each iteration of a job scheduler `repeat:<scheduler id>:<slot in Unix ms>` (addJobScheduler and
// updateJobScheduler); the slot is kept nowhere else once the job is promoted (its delay is reset to 0 then).
const SCHEDULER_JOB_ID = /^repeat:.+:(\d+)$/;

/** A scheduler iteration's slot on its grid (from its id), or undefined for any other job. */
function schedulerSlot(job: Pick<Job, 'id'>): number | undefined {
  const slot = SCHEDULER_JOB_ID.exec(job.id ?? '')?.[1];
  return slot === undefined ? undefined : Number(slot);
}

/**
 * When a job was due: for a scheduler's iteration its slot on the scheduler's grid (BullMQ adds each iteration
 * `every` ms after the previous one's slot), for any other job the moment it was added.
 */
export function jobDueAt(job: Pick<Job, 'id' | 'timestamp'>): number {
  return schedulerSlot(job) ?? job.timestamp;
}

/**
 * How far a tick runs past the latest slot of its scheduler's grid, so it can work as of that slot: what it
 * schedules (one interval on) stays on the grid, and the next tick finds it due however the pick-up jitters. A
 * tick a whole interval or more behind (a busy worker) works as of the latest slot it has passed, not as of the
 * moment it runs: working as of that moment put its sources a little past the grid, the next tick missed them,
 * and they came at twice the cadence. Another job (not a scheduler's) is late from when it was added, until it is
 * a whole interval behind.
 */
export function tickLatenessMs(job: Pick<Job, 'id' | 'timestamp'>, intervalSeconds: number, now: number = Date.now()): number {
  const intervalMs = intervalSeconds * 1000;
  const slot = schedulerSlot(job);
  if (slot === undefined) {
    const late = now - job.timestamp;
    return late > 0 && late < intervalMs ? late : 0;
  }
  const late = now - slot;
  return late > 0 ? late % intervalMs : 0;
}

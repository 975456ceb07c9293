import { MetricsTime, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Logger } from '@hashwatch/logger';
import { JobPayloadError, parseJobPayload, UnknownJobError } from './job-payload';
import { queueKeyPrefix } from './queue-keys';
import { connectionOptionsOf, type RedisClient } from './redis-connection';
import type { JobName, ParsedJobPayload, QueueJobData, QueueName } from './queue-catalog';

/** One handler per job of the queue; the compiler requires them all. */
export type JobHandlers<Q extends QueueName> = {
  readonly [J in JobName<Q>]: (
    payload: ParsedJobPayload<Q, J>,
    job: Job<QueueJobData<Q>, unknown, JobName<Q>>,
    log: Logger,
  ) => Promise<unknown>;
};

export interface DefineWorkerOptions {
  /** Use a `worker` connection (maxRetriesPerRequest: null); BullMQ duplicates it for blocking reads. */
  connection: RedisClient;
  /** QUEUE_PREFIX; the queue's keys are laid out as queue-keys.ts says. */
  prefix: string;
  concurrency: number;
  logger: Logger;
  /** Hears how long each job waited in the queue before this worker took it (first attempts only), in seconds. */
  observeWait?: (queue: QueueName, seconds: number) => void;
}

export interface DefinedWorker<Q extends QueueName> {
  readonly queueName: Q;
  readonly worker: Worker;
  /** Stops taking jobs and waits for the running ones. The connection stays open for its owner to close. */
  close(): Promise<void>;
}

/**
 * How soon the jobs of a killed replica run again elsewhere. BullMQ's defaults (a 30 s lock checked every 30 s)
 * left a SIGKILLed worker's jobs idle for up to a minute; a 5 s lock renewed every 2.5 s and checked every 3 s
 * hands them on within about 8 s. A live job also loses its lock when its event loop stalls, or Redis cannot
 * be reached, for longer than the renewals allow (2.5 to 5 s); it then runs twice, which every handler allows:
 * their writes are idempotent, and a repeated scan tick finds its sources already pushed an interval ahead, so
 * it spends no second search. A job may stall 3 times (a replica killed while running it, three times) before
 * it fails, where BullMQ's default of 1 made a second kill lose it; a job that kills its process each time
 * (out of memory) still ends after 4 replicas.
 */
export const STALL_DETECTION = { lockDuration: 5_000, stalledInterval: 3_000, maxStalledCount: 3 } as const;

type AnyHandler = (payload: unknown, job: Job, log: Logger) => Promise<unknown>;

/**
 * How long a job waited before a worker took it: from when it became due (added, or its delay over) to now.
 * Retries are left out: their wait is the backoff chosen, not a backlog. Null for a retry.
 */
export function jobWaitSeconds(job: Pick<Job, 'timestamp' | 'delay' | 'attemptsMade'>, now: number): number | null {
  if (job.attemptsMade > 0) return null;
  return Math.max(0, now - job.timestamp - (job.delay ?? 0)) / 1000;
}

/**
 * BullMQ's own metrics: completed and failed jobs per minute, a week of them kept in Redis per queue (a few
 * kB each), where Bull Board and `queue.getMetrics()` read them.
 */
const BULLMQ_METRICS = { maxDataPoints: MetricsTime.ONE_WEEK } as const;

/**
 * Starts a BullMQ Worker for one catalog queue. Each job is checked against the catalog before its
 * handler runs: an unknown job name or a payload that does not parse fails at once with
 * UnrecoverableError, since retrying cannot fix it. Handlers get a child logger carrying the job's ids.
 */
export function defineWorker<Q extends QueueName>(
  queueName: Q,
  handlers: JobHandlers<Q>,
  options: DefineWorkerOptions,
): DefinedWorker<Q> {
  const { logger } = options;
  // BullMQ refuses this too, but only after opening a blocking connection it then never closes.
  if (connectionOptionsOf(options.connection).maxRetriesPerRequest !== null) {
    throw new TypeError('defineWorker needs a worker connection (maxRetriesPerRequest: null): createRedisConnection(url, { role: "worker" })');
  }
  // parseJobPayload checks each name against its payload type before dispatch, so a plain map is enough here.
  const byName = handlers as unknown as Record<string, AnyHandler>;

  const processor = async (job: Job): Promise<unknown> => {
    const waited = options.observeWait ? jobWaitSeconds(job, Date.now()) : null;
    if (waited !== null) options.observeWait?.(queueName, waited);
    const log = logger.child({ queue: queueName, job: job.name, jobId: job.id, attempt: job.attemptsMade + 1 });
    let payload: unknown;
    try {
      payload = parseJobPayload(queueName, job.name, job.data).data;
    } catch (error) {
      if (error instanceof UnknownJobError || error instanceof JobPayloadError) {
        log.error('job rejected', { error });
        throw new UnrecoverableError(error.message);
      }
      throw error;
    }
    // hasOwn: a job named "toString" must not reach Object.prototype.
    const handler = Object.hasOwn(handlers, job.name) ? byName[job.name] : undefined;
    if (!handler) {
      log.error('job rejected', { reason: 'no handler' });
      throw new UnrecoverableError(`no handler for ${queueName}/${job.name}`);
    }
    const started = Date.now();
    try {
      const result = await handler(payload, job, log);
      // debug: at a thousand alerts a second one info line per job would be most of the log and its cost.
      log.debug('job completed', { durationMs: Date.now() - started });
      return result;
    } catch (error) {
      const attempts = job.opts.attempts ?? 1;
      const final = error instanceof UnrecoverableError || job.attemptsMade + 1 >= attempts;
      log.warn(final ? 'job failed' : 'job will retry', { durationMs: Date.now() - started, error });
      throw error;
    }
  };

  const worker = new Worker(queueName, processor, {
    connection: options.connection,
    prefix: queueKeyPrefix(options.prefix, queueName),
    concurrency: options.concurrency,
    metrics: BULLMQ_METRICS,
    ...STALL_DETECTION,
  });
  // A Worker with no 'error' listener writes each Redis error to the console itself.
  worker.on('error', (error) => logger.warn('worker error', { queue: queueName, error }));
  // A job taken back from a replica that died or lost its lock, to run again here or elsewhere.
  worker.on('stalled', (jobId) => logger.warn('job stalled', { queue: queueName, jobId }));

  return {
    queueName,
    worker,
    close: () => worker.close(),
  };
}

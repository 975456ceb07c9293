import type { Logger } from '@hashwatch/logger';
import { createQueues, type Queues } from './create-queues';
import { moveLegacyJobs } from './legacy-jobs';
import { createRedisConnection, untilReady, type RedisClient, type RedisTarget } from './redis-connection';

/** The Redis side of a worker app: one connection for its Workers, one for producing, and the queues on it. */
export interface WorkerConnections {
  /** For BullMQ Workers: waits through reconnects. */
  readonly worker: RedisClient;
  /** For producing, rate budgets and leases: fails at once while Redis is away. */
  readonly producer: RedisClient;
  readonly queues: Queues;
  /**
   * Resolves once the producer connection is ready (it refuses commands before) and the jobs an upgrade left
   * under the former key layout were moved to the queues (legacy-jobs.ts; a failure there is logged, not thrown).
   */
  ready(): Promise<void>;
  /**
   * Closes the queues, then drops both connections. Register it before the workers, so it runs after they stopped:
   * nothing is in flight then, and dropping (not QUIT) cannot hang a shutdown while Redis is away.
   */
  close(): Promise<void>;
}

const LEGACY_RECHECK_MS = 60_000;

/** Connects a worker app (`app` names its connections in `CLIENT LIST`) to Redis, as BullMQ's production guide asks. */
export function connectWorkerQueues(target: RedisTarget, options: { app: string; prefix: string; logger: Logger }): WorkerConnections {
  const { app, prefix, logger } = options;
  const worker = createRedisConnection(target, { role: 'worker', connectionName: `hashwatch-${app}-worker`, logger });
  const producer = createRedisConnection(target, { role: 'producer', connectionName: `hashwatch-${app}-producer`, logger });
  const queues = createQueues({ connection: producer, prefix, logger });
  const moveLegacy = () =>
    moveLegacyJobs(queues, producer, logger).catch((error: unknown) => logger.error('moving jobs from the former key layout failed; retried in a minute', { error }));
  // Started at once, so an app that never awaits ready() moves them too; then every minute, for the jobs replicas
  // of the former version still add while a rolling upgrade replaces them.
  const moved = untilReady(producer).then(moveLegacy);
  const again = setInterval(() => void moveLegacy(), LEGACY_RECHECK_MS);
  again.unref();
  return {
    worker,
    producer,
    queues,
    async ready() {
      await untilReady(producer);
      await moved;
    },
    async close() {
      clearInterval(again);
      await queues.close();
      producer.disconnect();
      worker.disconnect();
    },
  };
}

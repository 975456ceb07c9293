import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '@hashwatch/logger';

/**
 * `worker`: for BullMQ Workers (and anything that may block): commands wait through reconnects.
 * `producer`: for Queues that add jobs from a request or a relay: commands fail at once while Redis is
 * down, so the caller can answer 503 or retry instead of hanging.
 */
export type RedisRole = 'worker' | 'producer';

export interface RedisConnectionOptions {
  role: RedisRole;
  /** Shown in `CLIENT LIST`; defaults to `hashwatch-<role>`. */
  connectionName?: string;
  /** Receives connection errors; without it they are swallowed here (ioredis retries on its own). */
  logger?: Logger;
}

// BullMQ's production guide: reconnect forever, between 1 s and 20 s apart.
function retryStrategy(times: number): number {
  return Math.max(Math.min(Math.exp(times), 20_000), 1_000);
}

/** An ioredis connection set up as BullMQ's production guide asks for the given role. */
export function createRedisConnection(url: string, options: RedisConnectionOptions): Redis {
  const roleOptions: RedisOptions =
    options.role === 'worker'
      ? // BullMQ refuses a worker connection whose blocking commands could give up during a reconnect.
        { maxRetriesPerRequest: null }
      : { enableOfflineQueue: false, maxRetriesPerRequest: 1 };
  const redis = new Redis(url, {
    ...roleOptions,
    connectionName: options.connectionName ?? `hashwatch-${options.role}`,
    retryStrategy,
  });
  // Without a listener ioredis prints every reconnect error to the console itself.
  redis.on('error', (error: Error) => {
    options.logger?.warn('redis connection error', { role: options.role, error });
  });
  return redis;
}

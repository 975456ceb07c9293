import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from '@hashwatch/logger';

/** A connection to the suite's Redis: one server, or a Redis Cluster (`REDIS_CLUSTER_NODES`). */
export type RedisClient = Redis | Cluster;

/**
 * Where Redis is: a `redis://` URL, or some nodes of a cluster (ioredis discovers the others) with the user and
 * password every node takes and whether they speak TLS.
 */
export type RedisTarget =
  | string
  | { readonly clusterNodes: readonly { host: string; port: number }[]; readonly username?: string; readonly password?: string; readonly tls?: boolean };

type ClusterTarget = Exclude<RedisTarget, string>;

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
  /** Concurrent commands share one write and one read (ioredis auto-pipelining), for a busy request path. */
  autoPipelining?: boolean;
}

// BullMQ's production guide: reconnect forever, between 1 s and 20 s apart.
function retryStrategy(times: number): number {
  return Math.max(Math.min(Math.exp(times), 20_000), 1_000);
}

// BullMQ blocks for at most 10 s (BZPOPMIN); a read told to block forever gives up after as long.
const BLOCKING_TIMEOUT_MS = 10_000;

function roleOptions(role: RedisRole): RedisOptions {
  return role === 'worker'
    ? {
        // BullMQ refuses a worker connection whose blocking commands could give up during a reconnect.
        maxRetriesPerRequest: null,
        // A BZPOPMIN cut off by a master's restart is retried by the cluster client until the slot answers again,
        // and so outlived its own timeout. BullMQ's watchdog then tore the blocking cluster connection down and
        // reconnected it, and when a retried command reopened a node meanwhile that disconnect never ended: the
        // Worker waited on it for good and took no job again. With a deadline the command settles as a timeout
        // (timeout + 100 ms) before the watchdog (timeout + 1 s), and the Worker just polls again.
        blockingTimeout: BLOCKING_TIMEOUT_MS,
      }
    : { enableOfflineQueue: false, maxRetriesPerRequest: 1 };
}

/**
 * How often a cluster client reloads its slot map. ioredis follows a MOVED answer and corrects its map, except in a
 * pipeline that also holds a write that succeeded (auto-pipelining mixes a node's commands of many slots): there
 * the MOVED reaches the caller and the map stays as it was. After a master's restart such a stale entry failed
 * every later command for that slot, until the process restarted: a notifier's drains and sweeps stopped for good.
 * Reloading the map (one CLUSTER SLOTS) this often ends any stale entry within this long, whatever made it.
 */
export const SLOTS_REFRESH_INTERVAL_MS = 2_000;

/**
 * A cluster client with the role's options. A Cluster keeps its own offline queue (the producer's fails fast)
 * and passes `redisOptions` to each node's connection, which is where BullMQ looks for `maxRetriesPerRequest`.
 * While a master restarts its slots answer CLUSTERDOWN or refuse connections: the client retries those every
 * 300 ms and reloads the slot map, so a worker carries on once the master is back.
 */
function createCluster(target: ClusterTarget, connection: RedisConnectionOptions, connectionName: string): Cluster {
  const { enableOfflineQueue, ...perNode } = roleOptions(connection.role);
  const auth: RedisOptions = {
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.tls ? { tls: {} } : {}),
  };
  const options: ClusterOptions = {
    redisOptions: { ...perNode, ...auth, connectionName },
    // Over TLS, nodes are reached by the names they were announced under, so certificates match (managed clusters).
    ...(target.tls ? { dnsLookup: (address: string, callback: (error: null, address: string) => void) => callback(null, address) } : {}),
    clusterRetryStrategy: retryStrategy,
    retryDelayOnClusterDown: 300,
    retryDelayOnFailover: 300,
    retryDelayOnTryAgain: 300,
    slotsRefreshTimeout: 2_000,
    slotsRefreshInterval: SLOTS_REFRESH_INTERVAL_MS,
    enableAutoPipelining: connection.autoPipelining ?? false,
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
  };
  return new Cluster(target.clusterNodes.map((node) => ({ ...node })), options);
}

/** An ioredis connection (or cluster client) set up as BullMQ's production guide asks for the given role. */
export function createRedisConnection(target: RedisTarget, options: RedisConnectionOptions): RedisClient {
  const connectionName = options.connectionName ?? `hashwatch-${options.role}`;
  const redis =
    typeof target === 'string'
      ? new Redis(target, { ...roleOptions(options.role), connectionName, retryStrategy, enableAutoPipelining: options.autoPipelining ?? false })
      : createCluster(target, options, connectionName);
  // Without a listener ioredis prints every reconnect error to the console itself.
  redis.on('error', (error: Error) => {
    options.logger?.warn('redis connection error', { role: options.role, error });
  });
  return redis;
}

/** The options a connection's commands run with: a cluster's per-node options, or the server connection's own. */
export function connectionOptionsOf(redis: RedisClient): RedisOptions {
  return redis instanceof Cluster ? (redis.options.redisOptions ?? {}) : redis.options;
}

/** Resolves once the connection takes commands (a producer refuses them before its first connect). */
export async function untilReady(redis: RedisClient): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
}

/** A second connection like `redis` (same server or cluster, same role), under its own name. */
export function duplicateConnection(redis: RedisClient, options: { connectionName: string; autoPipelining?: boolean }): RedisClient {
  const enableAutoPipelining = options.autoPipelining ?? false;
  if (redis instanceof Cluster) {
    return redis.duplicate([], { enableAutoPipelining, redisOptions: { ...redis.options.redisOptions, connectionName: options.connectionName } });
  }
  return redis.duplicate({ enableAutoPipelining, connectionName: options.connectionName });
}

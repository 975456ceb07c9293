import { Cluster, Redis } from 'ioredis';

/** Where a test's Redis is: a URL, or the nodes of a Redis Cluster (the shape `@hashwatch/queues` takes). */
export type TestRedisTarget =
  | string
  | { readonly clusterNodes: readonly { host: string; port: number }[]; readonly username?: string; readonly password?: string };

/**
 * The Redis tests run on: the cluster named by `REDIS_CLUSTER_NODES` (`host:port,…`) when it is set, as the apps
 * read it (it wins over `REDIS_URL`), else `REDIS_URL`, else the local default.
 */
export function redisTargetFromEnv(env: Record<string, string | undefined> = process.env): TestRedisTarget {
  const nodes = env.REDIS_CLUSTER_NODES;
  if (nodes) {
    return {
      ...(env.REDIS_CLUSTER_USERNAME ? { username: env.REDIS_CLUSTER_USERNAME } : {}),
      ...(env.REDIS_CLUSTER_PASSWORD ? { password: env.REDIS_CLUSTER_PASSWORD } : {}),
      clusterNodes: nodes.split(',').map((entry) => {
        const match = /^([A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry.trim());
        if (!match) throw new Error(`REDIS_CLUSTER_NODES: "${entry}" is not host:port`);
        return { host: match[1] ?? '', port: Number(match[2]) };
      }),
    };
  }
  return env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** The environment a child process needs to reach the same Redis (`REDIS_CLUSTER_NODES` or `REDIS_URL`). */
export function redisEnvOf(target: TestRedisTarget): { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string } {
  return typeof target === 'string'
    ? { REDIS_URL: target }
    : { REDIS_CLUSTER_NODES: target.clusterNodes.map((node) => `${node.host}:${node.port}`).join(',') };
}

/** A plain client for test set-up and clean-up (commands retry a few times, then fail). */
export function openTestRedis(target: TestRedisTarget): Redis | Cluster {
  return typeof target === 'string'
    ? new Redis(target, { maxRetriesPerRequest: 3 })
    : new Cluster(target.clusterNodes.map((node) => ({ ...node })), {
        redisOptions: { maxRetriesPerRequest: 3, ...(target.username ? { username: target.username } : {}), ...(target.password ? { password: target.password } : {}) },
      });
}

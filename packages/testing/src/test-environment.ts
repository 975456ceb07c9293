import type { Cluster, Redis } from 'ioredis';
import { createTestDatabase, type TestDatabase } from './test-database';
import { createQueuePrefix, deletePrefixKeys } from './queue-prefix';
import { openTestRedis, redisEnvOf, redisTargetFromEnv, type TestRedisTarget } from './redis-target';

export interface TestEnvironment {
  readonly database: TestDatabase;
  /** A client for set-up and checks; a Cluster when the tests run on one (`REDIS_CLUSTER_NODES`). */
  readonly redis: Redis | Cluster;
  /** `REDIS_URL`; on a cluster run, what tests that need one server (a private Redis they kill) start from. */
  readonly redisUrl: string;
  /** Where the apps under test connect: `REDIS_CLUSTER_NODES` when set, else `REDIS_URL`. */
  readonly redisTarget: TestRedisTarget;
  /** The variables that point a child process at the same Redis. */
  readonly redisEnv: { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string };
  readonly queuePrefix: string;
}

/**
 * Registers beforeAll/afterAll hooks giving the test file its own database and QUEUE_PREFIX,
 * and removing both afterwards. Read the fields inside tests or hooks, not at module load.
 */
export function useTestEnvironment(): TestEnvironment {
  let database: TestDatabase | undefined;
  let redis: Redis | Cluster | undefined;
  const queuePrefix = createQueuePrefix();
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redisTarget = redisTargetFromEnv();

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = openTestRedis(redisTarget);
  });

  afterAll(async () => {
    if (redis) {
      await deletePrefixKeys(redis, queuePrefix);
      redis.disconnect();
    }
    await database?.drop();
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is only available inside tests and hooks`);
    return value;
  };
  return {
    get database() {
      return ready(database, 'database');
    },
    get redis() {
      return ready(redis, 'redis');
    },
    redisUrl,
    redisTarget,
    redisEnv: redisEnvOf(redisTarget),
    queuePrefix,
  };
}

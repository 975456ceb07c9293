import { Redis } from 'ioredis';
import { createTestDatabase, type TestDatabase } from './test-database';
import { createQueuePrefix, deletePrefixKeys } from './queue-prefix';

export interface TestEnvironment {
  readonly database: TestDatabase;
  readonly redis: Redis;
  readonly redisUrl: string;
  readonly queuePrefix: string;
}

/**
 * Registers beforeAll/afterAll hooks giving the test file its own database and QUEUE_PREFIX,
 * and removing both afterwards. Read the fields inside tests or hooks, not at module load.
 */
export function useTestEnvironment(): TestEnvironment {
  let database: TestDatabase | undefined;
  let redis: Redis | undefined;
  const queuePrefix = createQueuePrefix();
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
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
    queuePrefix,
  };
}

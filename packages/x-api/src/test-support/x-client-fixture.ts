import type { Cluster, Redis } from 'ioredis';
import { createLogger } from '@hashwatch/logger';
import { createQueuePrefix, deletePrefixKeys, openTestRedis, redisTargetFromEnv } from '@hashwatch/testing';
import type { SimulatorOptions } from '@hashwatch/x-simulator';
import { APP_TOKEN, useTestSimulator, type TestSimulator } from '@hashwatch/x-simulator/testing';
import { createXClient, type XClient, type XClientOptions } from '../x-client';

export { APP_TOKEN, USER_TOKEN } from '@hashwatch/x-simulator/testing';

export interface XClientFixture extends TestSimulator {
  readonly redis: Redis | Cluster;
  readonly keyPrefix: string;
  /** A client on this simulator and this file's Redis prefix; each call is another "replica". */
  client(overrides?: Partial<XClientOptions>): XClient;
}

/**
 * Registers hooks that run the X simulator on a free port and give the file its own Redis key prefix for the
 * clients' shared rate budget, deleting only that prefix's keys afterwards. Read the fields inside tests or hooks.
 */
export function useXClientFixture(options: SimulatorOptions = {}): XClientFixture {
  const simulator = useTestSimulator(options);
  const keyPrefix = createQueuePrefix();
  const logger = createLogger('x-api-test', { level: 'error' });
  let redis: Redis | Cluster | undefined;

  beforeAll(() => {
    // A cluster when the tests run on one (REDIS_CLUSTER_NODES).
    redis = openTestRedis(redisTargetFromEnv());
  });

  afterAll(async () => {
    if (!redis) return;
    await deletePrefixKeys(redis, keyPrefix);
    redis.disconnect();
  });

  const fixture: XClientFixture = {
    get sim() {
      return simulator.sim;
    },
    get url() {
      return simulator.url;
    },
    requests: (endpoint) => simulator.requests(endpoint),
    get redis() {
      if (!redis) throw new Error('redis is only available inside tests and hooks');
      return redis;
    },
    keyPrefix,
    client: (overrides = {}) => createXClient({ baseUrl: simulator.url, bearerToken: APP_TOKEN, redis: fixture.redis, keyPrefix, logger, ...overrides }),
  };
  return fixture;
}

import { createQueues, type Queues } from '../create-queues';
import { createRedisConnection, type RedisClient, type RedisTarget } from '../redis-connection';

/** What a test file's queues need of its environment (`useTestEnvironment()` gives both). */
export interface QueuesTestEnvironment {
  readonly redisTarget: RedisTarget;
  readonly queuePrefix: string;
}

/** A test file's queues: a producer connection and the queues under its prefix. */
export interface TestQueues {
  readonly queues: Queues;
  readonly producer: RedisClient;
}

/**
 * Opens a producer connection and the queues of the test file's own prefix before its tests, and closes them
 * after. Read the fields inside tests and hooks only.
 */
export function useTestQueues(env: QueuesTestEnvironment): TestQueues {
  let producer: RedisClient | undefined;
  let queues: Queues | undefined;
  beforeAll(() => {
    producer = createRedisConnection(env.redisTarget, { role: 'producer' });
    queues = createQueues({ connection: producer, prefix: env.queuePrefix });
  });
  afterAll(async () => {
    await queues?.close();
    producer?.disconnect();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is only available inside tests and hooks`);
    return value;
  };
  return {
    get queues() {
      return ready(queues, 'queues');
    },
    get producer() {
      return ready(producer, 'producer');
    },
  };
}

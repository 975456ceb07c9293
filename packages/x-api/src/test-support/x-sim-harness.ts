import { Redis } from 'ioredis';
import { createLogger } from '@hashwatch/logger';
import { createQueuePrefix, deletePrefixKeys } from '@hashwatch/testing';
// The simulator plays X; tests drive it in-process. Test code only: the package itself never imports an app.
import {
  createSimulator,
  serveSimulator,
  DEFAULT_APP_TOKEN,
  DEFAULT_USER_TOKEN,
  type RunningSimulator,
  type Simulator,
  type SimulatorOptions,
} from '@hashwatch/x-simulator';
import { createXClient, type XClient, type XClientOptions } from '../x-client';

export { DEFAULT_APP_TOKEN as APP_TOKEN, DEFAULT_USER_TOKEN as USER_TOKEN };

export interface XSimHarness {
  readonly sim: Simulator;
  readonly url: string;
  readonly redis: Redis;
  readonly keyPrefix: string;
  /** A client on this simulator and this file's Redis prefix; each call is another "replica". */
  client(overrides?: Partial<XClientOptions>): XClient;
  /** Requests the simulator received on one endpoint. */
  requests(endpoint: Parameters<Simulator['state']['requestLog']['requestCount']>[0]): number;
}

/**
 * Registers hooks that run an X simulator on a free port and give the file its own Redis key prefix,
 * deleting only that prefix's keys afterwards. Read the fields inside tests or hooks.
 */
export function useXSim(options: SimulatorOptions = {}): XSimHarness {
  const keyPrefix = createQueuePrefix();
  const logger = createLogger('x-api-test', { level: 'error' });
  let sim: Simulator | undefined;
  let running: RunningSimulator | undefined;
  let redis: Redis | undefined;

  beforeAll(async () => {
    sim = createSimulator(options);
    running = await serveSimulator(sim);
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 3 });
  });

  afterAll(async () => {
    await running?.close();
    if (redis) {
      await deletePrefixKeys(redis, keyPrefix);
      redis.disconnect();
    }
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is only available inside tests and hooks`);
    return value;
  };
  return {
    get sim() {
      return ready(sim, 'sim');
    },
    get url() {
      return ready(running, 'simulator').url;
    },
    get redis() {
      return ready(redis, 'redis');
    },
    keyPrefix,
    client(overrides = {}) {
      return createXClient({
        baseUrl: ready(running, 'simulator').url,
        bearerToken: DEFAULT_APP_TOKEN,
        redis: ready(redis, 'redis'),
        keyPrefix,
        logger,
        ...overrides,
      });
    },
    requests(endpoint) {
      return ready(sim, 'sim').state.requestLog.requestCount(endpoint);
    },
  };
}

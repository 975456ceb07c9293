import { createQueues } from './create-queues';
import { enqueue } from './enqueue';
import { Cluster } from 'ioredis';
import { connectionOptionsOf, createRedisConnection } from './redis-connection';
import { captureLogger } from '@hashwatch/testing';
import { redisTarget, untilReady } from './test-support/use-queue-fixture';
import { createQueuePrefix, deletePrefixKeys } from '@hashwatch/testing';

describe('createRedisConnection', () => {
  it('lets worker connections wait through reconnects (maxRetriesPerRequest null)', async () => {
    const redis = createRedisConnection(redisTarget, { role: 'worker' });
    try {
      expect(connectionOptionsOf(redis).maxRetriesPerRequest).toBeNull();
      expect(await redis.ping()).toBe('PONG');
    } finally {
      await redis.quit();
    }
  });

  it('makes producer commands fail at once while Redis is unreachable, and logs the error', async () => {
    const { logger, lines } = captureLogger();
    // Port 1 never answers Redis: the connection keeps retrying in the background.
    const redis = createRedisConnection('redis://127.0.0.1:1', { role: 'producer', logger });
    try {
      const started = Date.now();
      await expect(redis.ping()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(lines).toContainEqual(expect.objectContaining({ message: 'redis connection error', role: 'producer' }));
    } finally {
      redis.disconnect();
    }
  });

  it('gives a cluster client the same per-role options: workers wait, producers fail at once', async () => {
    // Port 1 never answers: the cluster cannot load its slot map, as while every master is away.
    const nodes = { clusterNodes: [{ host: '127.0.0.1', port: 1 }] };
    const worker = createRedisConnection(nodes, { role: 'worker' });
    const producer = createRedisConnection(nodes, { role: 'producer' });
    try {
      expect(worker).toBeInstanceOf(Cluster);
      expect(connectionOptionsOf(worker).maxRetriesPerRequest).toBeNull();
      expect(connectionOptionsOf(producer).maxRetriesPerRequest).toBe(1);
      const started = Date.now();
      await expect(producer.ping()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      worker.disconnect();
      producer.disconnect();
    }
  });

  it('makes enqueue fail fast while a producer connection is reconnecting, then succeed once it is back', async () => {
    const prefix = createQueuePrefix();
    const redis = createRedisConnection(redisTarget, { role: 'producer' });
    const queues = createQueues({ connection: redis, prefix });
    try {
      await enqueue(queues, 'outbox-relay', 'relay-outbox', {}, { jobId: 'relay-before' });
      const back = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
      redis.disconnect(true);
      const started = Date.now();
      await expect(enqueue(queues, 'outbox-relay', 'relay-outbox', {}, { jobId: 'relay-during' })).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(500);

      await back;
      await enqueue(queues, 'outbox-relay', 'relay-outbox', {}, { jobId: 'relay-after' });
      expect(await queues.byName['outbox-relay'].getJobCountByTypes('wait')).toBe(2);
    } finally {
      await queues.close();
      await untilReady(redis);
      await deletePrefixKeys(redis, prefix);
      await redis.quit();
    }
  });
});

import { Queue } from 'bullmq';
import { createQueuePrefix, deletePrefixKeys } from '@hashwatch/testing';
import { createQueues, type Queues } from './create-queues';
import { moveLegacyJobs } from './legacy-jobs';
import { createRedisConnection, untilReady, type RedisClient } from './redis-connection';

// The former layout only ever ran on one server, so this upgrade runs there even when the suite's tests run on a cluster.
const serverUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('moveLegacyJobs (an upgrade from the key layout without hash tags)', () => {
  const prefix = createQueuePrefix();
  let redis: RedisClient;
  let queues: Queues;
  const legacy: Queue[] = [];

  beforeAll(async () => {
    redis = createRedisConnection(serverUrl, { role: 'producer' });
    await untilReady(redis);
    queues = createQueues({ connection: redis, prefix });
  });

  afterAll(async () => {
    await Promise.all(legacy.map((queue) => queue.close()));
    await queues.close();
    await deletePrefixKeys(redis, prefix);
    redis.disconnect();
  });

  /** A queue as the former version made it: `<prefix>:<queue>:…`. */
  const former = (name: string): Queue => {
    const queue = new Queue(name, { connection: redis, prefix });
    legacy.push(queue);
    return queue;
  };

  it('moves waiting, delayed and prioritized jobs once, under their ids, with their due time and attempts left, from replicas at once', async () => {
    const routing = former('alert-routing');
    const deliveries = former('alert-deliveries');
    const relay = former('outbox-relay');
    await routing.add('route-alerts', { items: [{ postId: 'p1', sourceId: 's1' }] }, { jobId: 'route-alerts-a', attempts: 5 });
    await routing.add('route-alerts', { items: [{ postId: 'p2', sourceId: 's1' }] }, { jobId: 'route-alerts-b', attempts: 5, priority: 3 });
    const dueAt = Date.now() + 60_000;
    await deliveries.add('deliver-alert', { deliveryId: 'd1' }, { jobId: 'deliver-d1', attempts: 15, delay: 60_000 });
    await relay.upsertJobScheduler('relay-outbox-every-5s', { every: 5_000 }, { name: 'relay-outbox', data: {} });

    // Three replicas starting together.
    const counts = await Promise.all([moveLegacyJobs(queues, redis), moveLegacyJobs(queues, redis), moveLegacyJobs(queues, redis)]);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(3);

    const routingNow = queues.byName['alert-routing'];
    expect((await routingNow.getJob('route-alerts-a'))?.data).toEqual({ items: [{ postId: 'p1', sourceId: 's1' }] });
    const prioritized = await routingNow.getJob('route-alerts-b');
    expect(prioritized?.opts.priority).toBe(3);
    expect(await routingNow.getJobCounts('wait', 'prioritized')).toEqual({ wait: 1, prioritized: 1 });

    const delivery = queues.byName['alert-deliveries'];
    expect(await delivery.getJobState('deliver-d1')).toBe('delayed');
    const moved = await delivery.getJob('deliver-d1');
    expect(moved?.opts.attempts).toBe(15);
    const score = Number(await redis.zscore(`${prefix}:{alert-deliveries}:alert-deliveries:delayed`, 'deliver-d1'));
    expect(Math.abs(Math.floor(score / 0x1000) - dueAt)).toBeLessThan(5_000);

    // Nothing pending is left under the former names, and the former scheduler is gone (its app re-creates it).
    expect(await routing.getJobCounts('wait', 'prioritized', 'delayed', 'active')).toEqual({ wait: 0, prioritized: 0, delayed: 0, active: 0 });
    expect(await deliveries.getJobCountByTypes('delayed')).toBe(0);
    expect(await relay.getJobSchedulers()).toEqual([]);
    expect(await relay.getJobCountByTypes('delayed', 'wait')).toBe(0);

    // Again: nothing to move, nothing duplicated.
    expect(await moveLegacyJobs(queues, redis)).toBe(0);
    expect(await routingNow.getJobCounts('wait', 'prioritized')).toEqual({ wait: 1, prioritized: 1 });
  });

  it('keeps the attempts a retried job has left', async () => {
    const routing = former('source-scans');
    const job = await routing.add('reconcile-schedulers', {}, { jobId: 'reconcile-1', attempts: 3 });
    // One attempt spent, as a failed run would leave it.
    await redis.hset(`${prefix}:source-scans:${job.id}`, 'atm', '1');
    await moveLegacyJobs(queues, redis);
    expect((await queues.byName['source-scans'].getJob('reconcile-1'))?.opts.attempts).toBe(2);
  });

  it('leaves a job a replica of the former version is running where it is', async () => {
    const relay = former('alert-routing');
    await relay.add('route-alerts', { items: [] }, { jobId: 'route-alerts-running' });
    // What a running worker of the former version holds: the job in the active list, under its lock.
    await redis.lmove(`${prefix}:alert-routing:wait`, `${prefix}:alert-routing:active`, 'RIGHT', 'LEFT');
    await redis.set(`${prefix}:alert-routing:route-alerts-running:lock`, 'token', 'PX', 30_000);
    await moveLegacyJobs(queues, redis);
    expect(await queues.byName['alert-routing'].getJob('route-alerts-running')).toBeUndefined();
    expect(await relay.getJobState('route-alerts-running')).toBe('active');
  });

  it('reads nothing while no queue ever ran under the former names', async () => {
    const other = createQueues({ connection: redis, prefix: createQueuePrefix() });
    try {
      expect(await moveLegacyJobs(other, redis)).toBe(0);
    } finally {
      await other.close();
    }
  });
});

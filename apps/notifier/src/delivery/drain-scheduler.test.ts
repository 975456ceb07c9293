import { createQueues, createRedisConnection, duplicateConnection, untilReady, type Queues, type RedisClient } from '@hashwatch/queues';
import { useTestEnvironment } from '@hashwatch/testing';
import { sleep } from '../test-support/notifier-fixture';
import { acquireDrainLease, drainKeys, type DrainLease } from './drain-lease';
import { createDrainScheduler } from './drain-scheduler';

describe('drain scheduler', () => {
  const env = useTestEnvironment();
  let queues: Queues;
  let redis: ReturnType<typeof createRedisConnection>;
  beforeAll(async () => {
    redis = createRedisConnection(env.redisTarget, { role: 'producer' });
    if (redis.status !== 'ready') await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    queues = createQueues({ connection: redis, prefix: env.queuePrefix });
  });
  afterAll(async () => {
    await queues.close();
    redis.disconnect();
  });

  const drainJobs = async (channelId: string) =>
    (await queues.byName['alert-deliveries'].getJobs(['waiting', 'delayed'])).filter((job) => (job.data as { channelId?: string }).channelId === channelId);

  /** A scheduler whose inline runs wait until the test lets them finish. */
  function scheduler(capacity: number, connection: RedisClient = redis) {
    const runs: { channelId: string; lease: DrainLease; finish: () => void }[] = [];
    const drains = createDrainScheduler(queues, connection, {
      local: {
        capacity,
        leaseMs: 10_000,
        run: (channelId, lease) =>
          new Promise<void>((resolve) => {
            runs.push({ channelId, lease, finish: () => void lease.release().then(() => resolve()) });
          }),
      },
    });
    return { drains, runs };
  }

  it('drains a channel whose lease is free in this process, without a queue job, and tells the run about digest mode', async () => {
    const { drains, runs } = scheduler(5);
    await redis.set(drainKeys(env.queuePrefix, 'wh_inline').digest, '1');

    await drains.kick('wh_inline');

    expect(runs.map((run) => [run.channelId, run.lease.digestMode])).toEqual([['wh_inline', true]]);
    expect(await drainJobs('wh_inline')).toEqual([]);
    let closed = false;
    const closing = drains.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // close() waits for the inline run.
    expect(closed).toBe(false);
    runs[0]!.finish();
    await closing;
    expect(closed).toBe(true);
  });

  it('raises the wake flag of a channel another run holds, so the holder runs again, and adds no job', async () => {
    const { drains, runs } = scheduler(5);
    const keys = drainKeys(env.queuePrefix, 'wh_held');
    const holder = await acquireDrainLease(redis, keys, 10_000);

    await drains.kick('wh_held');

    expect(runs).toEqual([]);
    expect(await drainJobs('wh_held')).toEqual([]);
    expect(await holder!.release()).toEqual({ woken: true });
    // The flag is read once.
    const next = await acquireDrainLease(redis, keys, 10_000);
    expect(await next!.release()).toEqual({ woken: false });
  });

  it('drains no more channels inline than its capacity when a batch of kicks arrives at once, and queues the rest', async () => {
    const { drains, runs } = scheduler(5);
    const channels = Array.from({ length: 40 }, (_, n) => `wh_burst${n}`);

    await Promise.all(channels.map((channelId) => drains.kick(channelId)));

    expect(runs).toHaveLength(5);
    const inline = new Set(runs.map((run) => run.channelId));
    const queued = await queues.byName['alert-deliveries'].getJobs(['waiting', 'delayed']);
    const queuedChannels = queued.map((job) => (job.data as { channelId: string }).channelId).filter((id) => id.startsWith('wh_burst'));
    expect(queuedChannels.sort()).toEqual(channels.filter((id) => !inline.has(id)).sort());
    for (const run of runs) run.finish();
    await drains.close();
  });

  it('takes a lease on a connection that auto-pipelines when its first kick joins a pipeline another command opened', async () => {
    const pipelined = duplicateConnection(redis, { connectionName: 'drain-scheduler-test', autoPipelining: true });
    try {
      await untilReady(pipelined);
      const { drains, runs } = scheduler(5, pipelined);

      // Issued in the same tick, so both go out in the pipeline the first one opened.
      await Promise.all([pipelined.get(drainKeys(env.queuePrefix, 'wh_pipelined').lease), drains.kick('wh_pipelined')]);

      expect(runs.map((run) => run.channelId)).toEqual(['wh_pipelined']);
      runs[0]!.finish();
      await drains.close();
    } finally {
      pipelined.disconnect();
    }
  });

  it('hands a kick to the queue when this process drains as many channels as it may', async () => {
    const { drains, runs } = scheduler(1);
    await drains.kick('wh_first');
    await drains.kick('wh_second');

    expect(runs.map((run) => run.channelId)).toEqual(['wh_first']);
    expect((await drainJobs('wh_second')).map((job) => job.name)).toEqual(['drain-channel']);
    runs[0]!.finish();
    await drains.close();
    // Closed: kicks go to the queue.
    await drains.kick('wh_third');
    expect(runs).toHaveLength(1);
    expect(await drainJobs('wh_third')).toHaveLength(1);
  });

  describe('lease', () => {
    it('is lost for good by a run that stalled past it, whose release leaves the new holder its lease and wake flag', async () => {
      const keys = drainKeys(env.queuePrefix, 'wh_takeover');
      const stalled = (await acquireDrainLease(redis, keys, 300))!;
      await sleep(400);
      const holder = (await acquireDrainLease(redis, keys, 10_000))!;
      expect(holder.token).not.toBe(stalled.token);
      // A kick while the new holder runs raises the flag for it.
      expect(await acquireDrainLease(redis, keys, 10_000, { flagWhenTaken: true })).toBeUndefined();

      expect(await stalled.keep()).toBe(false);
      expect(await stalled.keep()).toBe(false);
      expect(await stalled.release()).toEqual({ woken: false });

      expect(await redis.get(keys.lease)).toBe(holder.token);
      expect(await holder.keep()).toBe(true);
      expect(await holder.release()).toEqual({ woken: true });
    });

    it('counts a renewal answered only after a third of the lease as lost, since a send may no longer fit', async () => {
      const keys = drainKeys(env.queuePrefix, 'wh_late_renewal');
      const lease = (await acquireDrainLease(redis, keys, 600))!;
      await sleep(250);
      // The renewal goes out, then the event loop is blocked before its answer is read.
      const kept = lease.keep();
      const blockedUntil = Date.now() + 250;
      while (Date.now() < blockedUntil) {
        // blocked
      }
      expect(await kept).toBe(false);
      expect(await lease.keep()).toBe(false);
      // Still this run's in Redis: letting go frees it for the next run at once.
      await lease.release();
      expect(await redis.get(keys.lease)).toBeNull();
    });

    it('is renewed in the background past its length while the run is within one step, and lapses once it is stuck longer', async () => {
      const keys = drainKeys(env.queuePrefix, 'wh_heartbeat');
      // Renewed every 300 ms: a timer late by up to 900 ms (a loaded machine) still keeps it.
      const lease = (await acquireDrainLease(redis, keys, 1_200, { heartbeatWhileMs: 3_000 }))!;
      // A send of over twice the lease's length: the heartbeat keeps the lease with most of it left.
      await sleep(2_600);
      expect(await redis.get(keys.lease)).toBe(lease.token);
      expect(await redis.pttl(keys.lease)).toBeGreaterThan(600);
      expect(await lease.keep()).toBe(true);
      // Stuck in one step for longer than allowed (or its process gone): no renewal, the lease lapses for the next run.
      await sleep(3_000 + 1_200 + 500);
      expect(await redis.get(keys.lease)).toBeNull();
      expect(await lease.keep()).toBe(false);
      const next = await acquireDrainLease(redis, keys, 1_200);
      expect(next).toBeDefined();
      await next!.release();
      await lease.release();
    });

    it('is kept by the local clock while what the caller needs is left, and renewed in Redis once it is not', async () => {
      const keys = drainKeys(env.queuePrefix, 'wh_renewed');
      const lease = (await acquireDrainLease(redis, keys, 3_000))!;
      await sleep(150);
      // Two thirds of it by default: no renewal yet.
      expect(await lease.keep()).toBe(true);
      expect(await redis.pttl(keys.lease)).toBeLessThanOrEqual(2_900);
      expect(await lease.keep(2_950)).toBe(true);
      expect(await redis.pttl(keys.lease)).toBeGreaterThan(2_900);
      // More than the lease's length can never be left.
      expect(await lease.keep(3_000)).toBe(false);
      await lease.release();
    });
  });
});

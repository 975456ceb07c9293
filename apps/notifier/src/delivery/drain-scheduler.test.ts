import { createQueues, createRedisConnection, type Queues } from '@hashwatch/queues';
import { useTestEnvironment } from '@hashwatch/testing';
import { acquireDrainLease, drainKeys, type DrainLease } from './drain-lease';
import { createDrainScheduler } from './drain-scheduler';

describe('drain scheduler', () => {
  const env = useTestEnvironment();
  let queues: Queues;
  let redis: ReturnType<typeof createRedisConnection>;
  beforeAll(async () => {
    redis = createRedisConnection(env.redisUrl, { role: 'producer' });
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
  function scheduler(capacity: number) {
    const runs: { channelId: string; lease: DrainLease; finish: () => void }[] = [];
    const drains = createDrainScheduler(queues, redis, {
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
    expect(drains.running).toBe(1);
    expect(await drainJobs('wh_inline')).toEqual([]);
    runs[0]!.finish();
    await drains.close();
    expect(drains.running).toBe(0);
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
});

import { createSender, type Sender } from '@hashwatch/channels';
import { createQueues, createRedisConnection, type Queues } from '@hashwatch/queues';
import { useTestEnvironment } from '@hashwatch/testing';
import { createNotifierMetrics } from '../notifier-metrics';
import { resolveNotifierOptions } from '../notifier-options';
import { routeAlerts } from '../routing/route-alert.job';
import { cipher, deliveriesOf, FAST, jsonChannel, post, quietLogger, storeFeedItems } from '../test-support/notifier-fixture';
import type { Receiver } from '../test-support/receiver';
import { createDestinationPace, type DestinationPace } from './destination-pace';
import { drainChannel, type DrainDeps } from './drain-channel.job';
import { createDrainScheduler } from './drain-scheduler';

describe('drain-channel', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  const log = quietLogger();
  let redis: ReturnType<typeof createRedisConnection>;
  let queues: Queues;
  let sender: Sender;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    redis = createRedisConnection(env.redisUrl, { role: 'producer' });
    if (redis.status !== 'ready') await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    queues = createQueues({ connection: redis, prefix: env.queuePrefix });
    sender = createSender({ allowPrivateNetworks: true, timeoutMs: 5_000 });
  });
  afterAll(async () => {
    sender.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await queues.close();
    redis.disconnect();
  });

  function drainDeps(pace: DestinationPace, channelId: string): DrainDeps {
    return {
      pool: pool(),
      redis,
      pace,
      drains: createDrainScheduler(queues, redis),
      cipher,
      sender,
      telegramBaseUrl: 'http://127.0.0.1:9',
      prefix: env.queuePrefix,
      options: resolveNotifierOptions(FAST),
      metrics: createNotifierMetrics(),
      // The first claim takes every due delivery, as a run that has seen the channel before does.
      batchHints: new Map([[channelId, 10]]),
    };
  }

  it('records what it sent and gives back what it did not when Redis fails part-way through a claim', async () => {
    const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
    const items = await storeFeedItems(pool(), [post(user), post(user), post(user)]);
    for (const item of items) await routeAlerts({ pool: pool(), drains: createDrainScheduler(queues, redis), metrics: createNotifierMetrics() }, [{ payload: { feedItemId: item.id, userId: user }, log }]);
    // The destination's pace answers the first message, then its Redis goes away.
    const pace = createDestinationPace(redis);
    let reservations = 0;
    const failingPace: DestinationPace = {
      reserve: async (destination) => {
        reservations += 1;
        if (reservations > 1) throw new Error('Connection is closed.');
        return pace.reserve(destination);
      },
      block: (destination, ms) => pace.block(destination, ms),
    };

    await expect(drainChannel(drainDeps(failingPace, channelId), channelId, log)).rejects.toThrow('Connection is closed.');

    expect(receiver.accepted).toHaveLength(1);
    const [sent, ...notSent] = await deliveriesOf(pool(), channelId);
    expect(sent).toMatchObject({ status: 'delivered', attempts: 1 });
    // Due again at once, the attempt not counted.
    for (const delivery of notSent) {
      expect(delivery).toMatchObject({ status: 'pending', attempts: 0 });
      expect(delivery.next_attempt_at!.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    }

    // The next run sends the rest, and nothing twice.
    await expect(drainChannel(drainDeps(pace, channelId), channelId, log)).resolves.toEqual({ kind: 'idle' });
    expect((await deliveriesOf(pool(), channelId)).map((delivery) => delivery.status)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(new Set(receiver.accepted.map((request) => request.headers['webhook-id'])).size).toBe(3);
    expect(receiver.accepted).toHaveLength(3);
  });

  it('retries with backoff, not at once, when the channel secret cannot be unsealed with this SECRETS_KEY', async () => {
    const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
    await pool().query('UPDATE notification_channels SET signing_secret_enc = $2 WHERE id = $1', [channelId, 'v1.sealed-under-another-key']);
    const items = await storeFeedItems(pool(), [post(user), post(user)]);
    for (const item of items) await routeAlerts({ pool: pool(), drains: createDrainScheduler(queues, redis), metrics: createNotifierMetrics() }, [{ payload: { feedItemId: item.id, userId: user }, log }]);

    // A minute's backoff: at least 30 s with jitter, far from "at once" whatever the machine's load.
    const deps = { ...drainDeps(createDestinationPace(redis), channelId), options: resolveNotifierOptions({ ...FAST, backoffBaseMs: 60_000, maxBackoffMs: 60_000 }) };
    await expect(drainChannel(deps, channelId, log)).resolves.toEqual({ kind: 'stopped' });

    expect(receiver.received).toHaveLength(0);
    const deliveries = await deliveriesOf(pool(), channelId);
    expect(deliveries).toHaveLength(2);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, last_error: "the channel's secret cannot be unsealed with this SECRETS_KEY" });
      expect(delivery.next_attempt_at!.getTime()).toBeGreaterThan(Date.now() + 10_000);
    }
  });
});

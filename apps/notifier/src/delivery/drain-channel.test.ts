import { createSender, type Sender } from '@hashwatch/channels';
import { createQueues, createRedisConnection, type Queues } from '@hashwatch/queues';
import { type Receiver, useTestEnvironment, waitFor } from '@hashwatch/testing';
import { createNotifierMetrics } from '../notifier-metrics';
import { leaseStallMs, resolveNotifierOptions } from '../notifier-options';
import { routeAlerts } from '../routing/route-alert.job';
import { cipher, deliveriesOf, FAST, jsonChannel, post, quietLogger, sleep, storeFeedItems } from '../test-support/notifier-fixture';
import { createDestinationPace, type DestinationPace } from './destination-pace';
import { createAccountSends } from './account-sends';
import { drainChannel } from './drain-channel.job';
import type { DrainDeps } from './drain-contract';
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
    redis = createRedisConnection(env.redisTarget, { role: 'producer' });
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

  // A json receiver's window held at one send in flight: each message of a claim waits for the one before, so a
  // test can stop a run between two of them.
  const ONE_AT_A_TIME = resolveNotifierOptions({ ...FAST, pace: { jsonWindow: { initial: 1, max: 1, slowFactor: 2, slowMarginMs: 50, idleMs: 60_000, baseLifetimeMs: 60_000 } } as never });

  function drainDeps(pace: DestinationPace, channelId: string): DrainDeps {
    return {
      pool: pool(),
      redis,
      pace,
      accountSends: createAccountSends(resolveNotifierOptions(FAST).maxSendsPerAccount),
      drains: createDrainScheduler(queues, redis),
      cipher,
      sender,
      telegramBaseUrl: 'http://127.0.0.1:9',
      prefix: env.queuePrefix,
      options: ONE_AT_A_TIME,
      metrics: createNotifierMetrics(),
      // The first claim takes every due delivery, as a run that has seen the channel before does.
      batchHints: new Map([[channelId, 10]]),
    };
  }

  /**
   * A pace that stops its run right before the send of message `at` of its claim (0 = the first) until `resume()`,
   * once the window admitted it, as a run stalls in a blocked event loop, a long GC pause or a partition to Redis;
   * `reached` resolves when the run gets there.
   */
  function stallingPace(at: number) {
    const pace = createDestinationPace(redis);
    let admitted = 0;
    let resume!: () => void;
    let arrive!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const reached = new Promise<void>((resolve) => (arrive = resolve));
    const stalling: DestinationPace = {
      ...pace,
      admit: async (destination, wanted, permitMs) => {
        const admission = await pace.admit(destination, wanted, permitMs);
        const before = admitted;
        admitted += admission.permits.length;
        if (before <= at && admitted > at) {
          arrive();
          await resumed;
        }
        return admission;
      },
    };
    return { pace: stalling, reached, resume };
  }

  /** Pending deliveries of the channel still held by a claim (next attempt in the future) that counted `attempts`. */
  async function heldClaims(channelId: string): Promise<{ status: string; attempts: number; held: boolean }[]> {
    const { rows } = await pool().query<{ status: string; attempts: number; held: boolean }>(
      `SELECT d.status, d.attempts, d.next_attempt_at > now() AS held
         FROM deliveries d JOIN feed_items f ON f.id = d.feed_item_id WHERE d.channel_id = $1 ORDER BY f.detected_at, d.id`,
      [channelId],
    );
    return rows;
  }

  describe.each([
    { stalledBefore: 0, sentByStalled: 0 },
    { stalledBefore: 1, sentByStalled: 1 },
  ])('a run stalled past its lease before message $stalledBefore of its claim', ({ stalledBefore, sentByStalled }) => {
    it('neither sends nor gives back the deliveries the run that took over holds, which sends each once', async () => {
      const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
      const items = await storeFeedItems(pool(), [post(user), post(user), post(user)]);
      await routeAlerts({ pool: pool(), drains: createDrainScheduler(queues, redis), metrics: createNotifierMetrics(), alertMaxAgeMs: 900_000 }, items.map((item) => ({ payload: { feedItemId: item.id, userId: user }, log })));
      const options = ONE_AT_A_TIME;

      // The first run claims all three and stalls; its lease and the claim's hold run out meanwhile.
      const first = stallingPace(stalledBefore);
      const stalled = drainChannel({ ...drainDeps(first.pace, channelId), options }, channelId, log);
      await first.reached;
      // Its heartbeat renews the lease for one step's worth of stall, then lets it lapse.
      await sleep(leaseStallMs(options) + options.leaseMs);
      await waitFor(async () => (await heldClaims(channelId)).every((delivery) => !delivery.held), 10_000, 'the claim to lapse');

      // Another run takes the lease and claims the three again (the first one's send was not recorded yet).
      const second = stallingPace(0);
      const takeover = drainChannel({ ...drainDeps(second.pace, channelId), options }, channelId, log);
      await second.reached;
      expect(await heldClaims(channelId)).toEqual(Array.from({ length: 3 }, () => ({ status: 'pending', attempts: 2, held: true })));

      // The stalled run wakes up: it sends nothing more, and leaves the new claim as it is.
      first.resume();
      await expect(stalled).resolves.toEqual({ kind: 'stopped' });
      expect(receiver.received).toHaveLength(sentByStalled);
      expect(await heldClaims(channelId)).toEqual(Array.from({ length: 3 }, () => ({ status: 'pending', attempts: 2, held: true })));

      // The run that took over sends each delivery once and records it.
      second.resume();
      await expect(takeover).resolves.toEqual({ kind: 'idle' });
      const deliveries = await deliveriesOf(pool(), channelId);
      expect(deliveries.map((delivery) => [delivery.status, delivery.attempts])).toEqual(Array.from({ length: 3 }, () => ['delivered', 2]));
      const sentByTakeover = receiver.accepted.slice(sentByStalled).map((request) => request.headers['webhook-id']);
      expect(sentByTakeover).toEqual(deliveries.map((delivery) => delivery.message_id));
      expect(receiver.accepted).toHaveLength(sentByStalled + 3);
    }, 30_000);
  });

  it('records what it sent and gives back what it did not when Redis fails part-way through a claim', async () => {
    const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
    const items = await storeFeedItems(pool(), [post(user), post(user), post(user)]);
    for (const item of items) await routeAlerts({ pool: pool(), drains: createDrainScheduler(queues, redis), metrics: createNotifierMetrics(), alertMaxAgeMs: 900_000 }, [{ payload: { feedItemId: item.id, userId: user }, log }]);
    // The destination's window admits the first message, then its Redis goes away.
    const pace = createDestinationPace(redis);
    let admissions = 0;
    const failingPace: DestinationPace = {
      ...pace,
      admit: async (destination, wanted, permitMs) => {
        admissions += 1;
        if (admissions > 1) throw new Error('Connection is closed.');
        return pace.admit(destination, wanted, permitMs);
      },
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

  it('retries the claimed deliveries with backoff, saying why, when neither key of this notifier opens the secret, and loses none', async () => {
    const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
    const { rows } = await pool().query<{ sealed: string }>('SELECT signing_secret_enc AS sealed FROM notification_channels WHERE id = $1', [channelId]);
    // Sealed under a key this notifier is not given (a rotation it has not caught up with, or a damaged row).
    await pool().query('UPDATE notification_channels SET signing_secret_enc = $2 WHERE id = $1', [channelId, 'v1.sealed-under-another-key']);
    const items = await storeFeedItems(pool(), [post(user), post(user)]);
    for (const item of items) await routeAlerts({ pool: pool(), drains: createDrainScheduler(queues, redis), metrics: createNotifierMetrics(), alertMaxAgeMs: 900_000 }, [{ payload: { feedItemId: item.id, userId: user }, log }]);

    const before = Date.now();
    const result = await drainChannel(drainDeps(createDestinationPace(redis), channelId), channelId, log);
    expect(result).toEqual({ kind: 'paced', waitMs: expect.any(Number) });
    expect(receiver.received).toHaveLength(0);
    const waiting = await deliveriesOf(pool(), channelId);
    expect(waiting.map((delivery) => delivery.status)).toEqual(['pending', 'pending']);
    expect(waiting[0]).toMatchObject({
      attempts: 1,
      last_error: expect.stringMatching(/^not sent: the channel's secret cannot be opened with SECRETS_KEY \(nor SECRETS_KEY_PREVIOUS\) of this notifier/),
    });
    // Due again only after its backoff, counted from when the run recorded it (not from when this line runs,
    // which on a loaded machine may already be past a short test backoff).
    const { waitMs } = result as { waitMs: number };
    expect(waitMs).toBeGreaterThan(0);
    expect(waiting[0]!.next_attempt_at!.getTime()).toBeGreaterThanOrEqual(before + waitMs);

    // A notifier that opens it (here: the secret sealed with this one's key again) sends both, once each.
    await pool().query('UPDATE notification_channels SET signing_secret_enc = $2 WHERE id = $1', [channelId, rows[0]!.sealed]);
    await pool().query('UPDATE deliveries SET next_attempt_at = now() WHERE channel_id = $1', [channelId]);
    await drainChannel(drainDeps(createDestinationPace(redis), channelId), channelId, log);
    await waitFor(async () => (await deliveriesOf(pool(), channelId)).every((delivery) => delivery.status === 'delivered'), 5_000, 'both delivered');
    expect(receiver.accepted).toHaveLength(2);
  });

  it('disables a json channel that has no signing secret and fails its deliveries, sending nothing unsigned', async () => {
    const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
    await pool().query('UPDATE notification_channels SET signing_secret_enc = NULL WHERE id = $1', [channelId]);
    const items = await storeFeedItems(pool(), [post(user), post(user)]);
    for (const item of items) await routeAlerts({ pool: pool(), drains: createDrainScheduler(queues, redis), metrics: createNotifierMetrics(), alertMaxAgeMs: 900_000 }, [{ payload: { feedItemId: item.id, userId: user }, log }]);

    await expect(drainChannel(drainDeps(createDestinationPace(redis), channelId), channelId, log)).resolves.toEqual({ kind: 'stopped' });
    expect(receiver.received).toHaveLength(0);
    const reason = 'the channel cannot be used: no signing secret is stored for this channel';
    expect(await deliveriesOf(pool(), channelId)).toEqual([
      expect.objectContaining({ status: 'failed', last_error: reason }),
      expect.objectContaining({ status: 'failed', last_error: reason }),
    ]);
    const { rows } = await pool().query('SELECT enabled, disabled_reason FROM notification_channels WHERE id = $1', [channelId]);
    expect(rows[0]).toEqual({ enabled: false, disabled_reason: reason });
  });
});

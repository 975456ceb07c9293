import pg from 'pg';
import { transaction } from '@hashwatch/db';
import { relayOutboxUntilEmpty, writeOutbox } from '@hashwatch/outbox';
import { createQueues, createRedisConnection, routeAlertJobId, routeAlertsJobs, type Queues } from '@hashwatch/queues';
import { useTestEnvironment, waitFor } from '@hashwatch/testing';
import { createDrainScheduler } from '../delivery/drain-scheduler';
import { createNotifierMetrics } from '../notifier-metrics';
import { addWebhook, newAccount, post, quietLogger, startTestNotifier, storeFeedItems, type NotifierHandle } from '../test-support/notifier-fixture';
import { createRouteBatcher } from './route-alert.job';

// The hook deliveries are never sent in these tests: the notifier's drains would only find a closed port.
const url = 'http://127.0.0.1:9/hook';

describe('route-alerts jobs', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  const log = quietLogger();
  let queues: Queues;
  let connection: ReturnType<typeof createRedisConnection>;

  beforeAll(() => {
    connection = createRedisConnection(env.redisUrl, { role: 'producer' });
    queues = createQueues({ connection, prefix: env.queuePrefix });
  });
  afterAll(async () => {
    await queues.close();
    connection.disconnect();
  });

  const deliveriesFor = async (feedItemIds: string[]) => {
    const { rows } = await pool().query<{ feed_item_id: string; channel_id: string }>(
      'SELECT feed_item_id, channel_id FROM deliveries WHERE feed_item_id = ANY($1) ORDER BY feed_item_id, channel_id',
      [feedItemIds],
    );
    return rows;
  };
  const batcher = (routingPool: pg.Pool = pool()) =>
    createRouteBatcher({ pool: routingPool, drains: createDrainScheduler(queues, connection), metrics: createNotifierMetrics() });

  it('routes the 500 items of one job in one statement pair', async () => {
    const user = await newAccount(env.database);
    await addWebhook(pool(), user, { url });
    const items = await storeFeedItems(pool(), Array.from({ length: 500 }, () => post(user)));
    // A pool of its own, so every statement routing makes is counted.
    const routingPool = new pg.Pool({ connectionString: env.database.url, max: 2 });
    let statements = 0;
    routingPool.on('acquire', () => {
      statements += 1;
    });
    try {
      const results = await batcher(routingPool).routeMany(
        items.map((item) => ({ feedItemId: item.id, userId: user })),
        log,
      );
      expect(statements).toBe(2);
      expect(results).toHaveLength(500);
      expect(results.every((result) => result.channels === 1 && result.created === 1)).toBe(true);
    } finally {
      await routingPool.end();
    }
    expect(await deliveriesFor(items.map((item) => item.id))).toHaveLength(500);
  });

  describe('through the notifier', () => {
    let handle: NotifierHandle | undefined;
    afterEach(async () => {
      await handle?.stop();
      handle = undefined;
    });

    it('completes a batch job once its deliveries are committed, and a retry of it (after a crash) creates none again', async () => {
      const alice = await newAccount(env.database);
      const bob = await newAccount(env.database);
      await addWebhook(pool(), alice, { url });
      await addWebhook(pool(), alice, { url, hashtags: ['btc'] });
      await addWebhook(pool(), bob, { url });
      const items = [...(await storeFeedItems(pool(), [post(alice), post(alice)])), ...(await storeFeedItems(pool(), [post(bob)]))];
      const [aliceJob, bobJob] = routeAlertsJobs(items.slice(0, 2).map((item) => ({ feedItemId: item.id, userId: alice })))
        .concat(routeAlertsJobs([{ feedItemId: items[2]!.id, userId: bob }]));
      handle = await startTestNotifier(pool(), { redisUrl: env.redisUrl, prefix: env.queuePrefix, notifier: { localDrains: 0 } });
      await relayOutboxUntilEmpty(pool(), queues);

      const queue = queues.byName['alert-routing'];
      await waitFor(async () => (await queue.getJob(aliceJob!.jobId))?.returnvalue != null, 20_000, "alice's job completed");
      expect((await queue.getJob(aliceJob!.jobId))?.returnvalue).toEqual({ items: 2, channels: 4, created: 4 });
      await waitFor(async () => (await queue.getJob(bobJob!.jobId))?.returnvalue != null, 20_000, "bob's job completed");
      const routed = await deliveriesFor(items.map((item) => item.id));
      expect(routed).toHaveLength(5);

      // The job runs again from the start, as after a crash before BullMQ recorded it done.
      await (await queue.getJob(aliceJob!.jobId))!.retry('completed');
      await waitFor(async () => (await queue.getJob(aliceJob!.jobId))?.finishedOn != null, 20_000, "alice's job completed again");
      expect((await queue.getJob(aliceJob!.jobId))?.returnvalue).toEqual({ items: 2, channels: 4, created: 0 });
      expect(await deliveriesFor(items.map((item) => item.id))).toEqual(routed);
    }, 60_000);

    it('still routes a single-item route-alert job queued before producers wrote batches', async () => {
      const user = await newAccount(env.database);
      const channel = await addWebhook(pool(), user, { url });
      const [item] = await storeFeedItems(pool(), [post(user)]);
      await pool().query('DELETE FROM outbox_jobs');
      await transaction(pool(), (client) =>
        writeOutbox(client, [{ queue: 'alert-routing', name: 'route-alert', jobId: routeAlertJobId(item!.id), payload: { feedItemId: item!.id, userId: user } }]),
      );
      handle = await startTestNotifier(pool(), { redisUrl: env.redisUrl, prefix: env.queuePrefix, notifier: { localDrains: 0 } });
      await relayOutboxUntilEmpty(pool(), queues);

      await waitFor(async () => (await queues.byName['alert-routing'].getJob(routeAlertJobId(item!.id)))?.returnvalue != null, 20_000, 'the job completed');
      expect(await deliveriesFor([item!.id])).toEqual([{ feed_item_id: item!.id, channel_id: channel.id }]);
    }, 60_000);
  });

  it('routes the other items of a batch when one item cannot be routed, fails the job, and its retry duplicates nothing', async () => {
    const good = await newAccount(env.database);
    const bad = await newAccount(env.database);
    await addWebhook(pool(), good, { url });
    await addWebhook(pool(), bad, { url });
    const goodItems = await storeFeedItems(pool(), [post(good), post(good), post(good)]);
    const [badItem] = await storeFeedItems(pool(), [post(bad)]);
    const payloads = [goodItems[0]!, badItem!, goodItems[1]!, goodItems[2]!].map((item) => ({ feedItemId: item.id, userId: item.userId }));
    // An integrity error for one item, every time it is inserted: what a row deleted under routing raises once.
    await pool().query(`
      CREATE FUNCTION refuse_item() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.feed_item_id = '${badItem!.id}' THEN RAISE EXCEPTION 'refused' USING ERRCODE = '23514'; END IF;
        RETURN NEW;
      END $$`);
    await pool().query('CREATE TRIGGER refuse_item BEFORE INSERT ON deliveries FOR EACH ROW EXECUTE FUNCTION refuse_item()');
    const router = batcher();
    try {
      await expect(router.routeMany(payloads, log)).rejects.toMatchObject({ code: '23514' });
      expect((await deliveriesFor(payloads.map((p) => p.feedItemId))).map((row) => row.feed_item_id).sort()).toEqual(goodItems.map((item) => item.id).sort());
    } finally {
      await pool().query('DROP TRIGGER refuse_item ON deliveries');
      await pool().query('DROP FUNCTION refuse_item()');
    }

    // BullMQ's retry: the whole job again. The routed items create nothing new; the refused one is routed now.
    const results = await router.routeMany(payloads, log);
    expect(results).toEqual([
      { channels: 1, created: 0 },
      { channels: 1, created: 1 },
      { channels: 1, created: 0 },
      { channels: 1, created: 0 },
    ]);
    expect(await deliveriesFor(payloads.map((p) => p.feedItemId))).toHaveLength(4);
  });

  it('answers each job that shared a batch with its own items, in order', async () => {
    const user = await newAccount(env.database);
    await addWebhook(pool(), user, { url });
    const stored = await storeFeedItems(pool(), Array.from({ length: 6 }, () => post(user)));
    const missing = { feedItemId: 'post_missing', userId: user };
    const router = batcher();
    const payloads = stored.map((item) => ({ feedItemId: item.id, userId: user }));
    // The first job routes at once; the next three arrive meanwhile and share the next statement pair.
    const answers = await Promise.all([
      router.routeMany(payloads.slice(0, 1), log),
      router.routeMany([payloads[1]!, missing, payloads[2]!], log),
      router.route(payloads[3]!, log),
      router.routeMany(payloads.slice(4), log),
    ]);
    const routedOnce = { channels: 1, created: 1 };
    expect(answers).toEqual([[routedOnce], [routedOnce, { channels: 0, created: 0 }, routedOnce], routedOnce, [routedOnce, routedOnce]]);
  });
});

import pg from 'pg';
import { relayOutboxUntilEmpty } from '@hashwatch/outbox';
import { useTestEnvironment, waitFor } from '@hashwatch/testing';
import { routeAlertsJobs, type Queues, type RedisClient } from '@hashwatch/queues';
import { useTestQueues } from '@hashwatch/queues/testing';
import { createDrainScheduler } from '../delivery/drain-scheduler';
import { messageIdFor } from '../delivery/delivery-store';
import { createNotifierMetrics } from '../notifier-metrics';
import { addBot, addWebhook, newAccount, post, quietLogger, startTestNotifier, storeFeedItems, type NotifierHandle } from '../test-support/notifier-fixture';
import { createRouteBatcher, routeAlerts } from './route-alert.job';

describe('route-alert', () => {
  const env = useTestEnvironment();
  let queues: Queues;
  let connection: RedisClient;
  const pool = () => env.database.db.pool;
  const log = quietLogger();

  const testQueues = useTestQueues(env);
  beforeAll(() => {
    ({ queues, producer: connection } = testQueues);
  });

  const route = async (feedItemId: string, userId: string) => {
    const [result] = await routeAlerts({ pool: pool(), drains: createDrainScheduler(queues, connection), metrics: createNotifierMetrics(), alertMaxAgeMs: 900_000 }, [{ payload: { feedItemId, userId }, log }]);
    return result!;
  };

  async function routedChannels(feedItemId: string): Promise<string[]> {
    const { rows } = await pool().query<{ channel_id: string }>('SELECT channel_id FROM deliveries WHERE feed_item_id = $1 ORDER BY channel_id', [feedItemId]);
    return rows.map((row) => row.channel_id);
  }

  const url = 'https://hooks.example.com/in';

  it('sends a post to unscoped channels and to channels whose scope lists one of its sources, case-insensitively', async () => {
    const user = await newAccount(env.database);
    const everything = await addWebhook(pool(), user, { url });
    const btc = await addWebhook(pool(), user, { url, hashtags: ['btc'] });
    const eth = await addWebhook(pool(), user, { url, hashtags: ['eth'] });
    const alice = await addWebhook(pool(), user, { url, accounts: ['alice'] });
    const [item] = await storeFeedItems(pool(), [post(user, { sources: ['#BTC', '@alice'], hashtag: 'btc' })]);

    await route(item!.id, user);

    expect(await routedChannels(item!.id)).toEqual([everything.id, btc.id, alice.id].sort());
    expect(await routedChannels(item!.id)).not.toContain(eth.id);
  });

  it('treats a cashtag source as the hashtag of the same name', async () => {
    const user = await newAccount(env.database);
    const tsla = await addWebhook(pool(), user, { url, hashtags: ['tsla'] });
    const [item] = await storeFeedItems(pool(), [post(user, { sources: ['$tsla'], hashtag: 'tsla' })]);

    await route(item!.id, user);

    expect(await routedChannels(item!.id)).toEqual([tsla.id]);
  });

  it('applies the source filter after the scope: hashtags only, accounts only', async () => {
    const user = await newAccount(env.database);
    const hashtagsOnly = await addWebhook(pool(), user, { url, sourceFilter: 'hashtags' });
    const accountsOnly = await addWebhook(pool(), user, { url, sourceFilter: 'accounts' });
    const scopedToBtcAccountsOnly = await addWebhook(pool(), user, { url, hashtags: ['btc'], accounts: ['bob'], sourceFilter: 'accounts' });
    const [hashtagItem, accountItem, both] = await storeFeedItems(pool(), [
      post(user, { sources: ['#btc'] }),
      post(user, { type: 'account', hashtag: null, account: 'alice', sources: ['@alice'] }),
      post(user, { sources: ['#btc', '@bob'] }),
    ]);
    for (const item of [hashtagItem, accountItem, both]) await route(item!.id, user);

    expect(await routedChannels(hashtagItem!.id)).toEqual([hashtagsOnly.id]);
    expect(await routedChannels(accountItem!.id)).toEqual([accountsOnly.id]);
    // In scope through @bob, which is an account source: the accounts-only filter lets it through.
    expect(await routedChannels(both!.id)).toEqual([hashtagsOnly.id, accountsOnly.id, scopedToBtcAccountsOnly.id].sort());
  });

  it('sends engagement alerts only to opted-in channels, for categories on at the source, ignoring the filter but not the scope', async () => {
    const user = await newAccount(env.database);
    const optedIn = await addWebhook(pool(), user, { url, engagementAlerts: true, sourceFilter: 'accounts' });
    const notOptedIn = await addWebhook(pool(), user, { url });
    const otherScope = await addWebhook(pool(), user, { url, engagementAlerts: true, hashtags: ['eth'] });
    const bot = await addBot(pool(), user, { token: '123:abc', chatId: '42', engagementAlerts: true });
    const [parent] = await storeFeedItems(pool(), [post(user, { sources: ['#btc'], engagementTracked: true, trackLikes: false })]);
    const engagement = (kind: 'like' | 'retweet' | 'reply', n: number) =>
      post(user, { type: 'engagement', parentId: parent!.id, kind, sources: ['#btc'], dedupeKey: `e:${parent!.id}:${kind}:${n}`, author: `fan${n}` });
    const [retweet, like] = await storeFeedItems(pool(), [engagement('retweet', 1), engagement('like', 2)]);

    await route(retweet!.id, user);
    await route(like!.id, user);

    expect(await routedChannels(retweet!.id)).toEqual([optedIn.id, bot].sort());
    expect(await routedChannels(retweet!.id)).not.toContain(notOptedIn.id);
    expect(await routedChannels(retweet!.id)).not.toContain(otherScope.id);
    // Likes were switched off for the source when the parent was detected.
    expect(await routedChannels(like!.id)).toEqual([]);
  });

  it('skips disabled channels, and routing twice creates each delivery once with the same message id', async () => {
    const user = await newAccount(env.database);
    const on = await addWebhook(pool(), user, { url });
    await addWebhook(pool(), user, { url, enabled: false });
    const gone = await addWebhook(pool(), user, { url });
    await pool().query(`UPDATE notification_channels SET disabled_reason = 'Discord answered 404' WHERE id = $1`, [gone.id]);
    const [item] = await storeFeedItems(pool(), [post(user)]);

    const first = await route(item!.id, user);
    const second = await route(item!.id, user);

    expect(first).toEqual({ channels: 1, created: 1 });
    expect(second).toEqual({ channels: 1, created: 0 });
    const { rows } = await pool().query('SELECT channel_id, message_id, status FROM deliveries WHERE feed_item_id = $1', [item!.id]);
    expect(rows).toEqual([{ channel_id: on.id, message_id: messageIdFor(on.id, item!.id), status: 'pending' }]);
  });

  it('routes a batch of items of several accounts in one call, answering per item, and ignores an item asked for by another account', async () => {
    const alice = await newAccount(env.database);
    const bob = await newAccount(env.database);
    const aliceAll = await addWebhook(pool(), alice, { url });
    const aliceEth = await addWebhook(pool(), alice, { url, hashtags: ['eth'] });
    const bobAll = await addWebhook(pool(), bob, { url });
    const [a1, a2] = await storeFeedItems(pool(), [post(alice), post(alice, { hashtag: 'eth', sources: ['#eth'] })]);
    const [b1] = await storeFeedItems(pool(), [post(bob)]);
    const deps = { pool: pool(), drains: createDrainScheduler(queues, connection), metrics: createNotifierMetrics(), alertMaxAgeMs: 900_000 };

    const results = await routeAlerts(
      deps,
      [
        { feedItemId: a1!.id, userId: alice },
        { feedItemId: b1!.id, userId: bob },
        { feedItemId: a2!.id, userId: alice },
        { feedItemId: b1!.id, userId: alice },
      ].map((payload) => ({ payload, log })),
    );

    expect(results).toEqual([
      { channels: 1, created: 1 },
      { channels: 1, created: 1 },
      { channels: 2, created: 2 },
      { channels: 0, created: 0 },
    ]);
    expect(await routedChannels(a1!.id)).toEqual([aliceAll.id]);
    expect(await routedChannels(a2!.id)).toEqual([aliceAll.id, aliceEth.id].sort());
    expect(await routedChannels(b1!.id)).toEqual([bobAll.id]);
  });

  it('routes the other jobs of a batch when one account deletes a routed channel between the read and the insert', async () => {
    const alice = await newAccount(env.database);
    const bob = await newAccount(env.database);
    const carol = await newAccount(env.database);
    const deleted = await addWebhook(pool(), alice, { url });
    const bobAll = await addWebhook(pool(), bob, { url });
    const carolAll = await addWebhook(pool(), carol, { url });
    const [a] = await storeFeedItems(pool(), [post(alice)]);
    const [b] = await storeFeedItems(pool(), [post(bob)]);
    const [c] = await storeFeedItems(pool(), [post(carol)]);
    const router = createRouteBatcher({ pool: pool(), drains: createDrainScheduler(queues, connection), metrics: createNotifierMetrics(), alertMaxAgeMs: 900_000 });
    // PUT /notifications deleting Alice's webhook, not committed yet: routing still reads the channel, and its
    // insert waits for this transaction, then finds the channel gone.
    const putNotifications = await pool().connect();
    try {
      await putNotifications.query('BEGIN');
      await putNotifications.query('DELETE FROM notification_channels WHERE id = $1', [deleted.id]);

      // Carol's job routes at once; Alice's and Bob's arrive meanwhile and share the next batch.
      const first = router.routeMany([{ feedItemId: c!.id, userId: carol }], log).then(([result]) => result);
      const batched = [router.routeMany([{ feedItemId: a!.id, userId: alice }], log).then(([result]) => result), router.routeMany([{ feedItemId: b!.id, userId: bob }], log).then(([result]) => result)];
      await waitFor(async () => {
        const { rows } = await pool().query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO deliveries%'`,
        );
        return rows[0]!.n > 0;
      }, 20_000, 'the routing insert waits for the deletion');
      await putNotifications.query('COMMIT');

      expect(await Promise.all([first, ...batched])).toEqual([
        { channels: 1, created: 1 },
        { channels: 0, created: 0 },
        { channels: 1, created: 1 },
      ]);
    } finally {
      await putNotifications.query('ROLLBACK').catch(() => undefined);
      putNotifications.release();
    }
    expect(await routedChannels(b!.id)).toEqual([bobAll.id]);
    expect(await routedChannels(c!.id)).toEqual([carolAll.id]);
    expect(await routedChannels(a!.id)).toEqual([]);
  });

  it('finds an item late only when detected more than the cutoff after posted_at: its chat deliveries skipped, its json ones late', async () => {
    const user = await newAccount(env.database);
    const json = await addWebhook(pool(), user, { url });
    const discord = await addWebhook(pool(), user, { url: 'https://discord.com/api/webhooks/1/abc', format: 'auto' });
    const bot = await addBot(pool(), user, { token: '1:abc', chatId: '42' });
    const [atCutoff, pastCutoff, undated] = await storeFeedItems(pool(), [post(user), post(user), post(user, { postedAt: null })]);
    await pool().query(
      `UPDATE feed_items f SET posted_at = f.detected_at - v.ms * interval '1 millisecond' FROM unnest($1::text[], $2::int[]) AS v(id, ms) WHERE f.id = v.id`,
      [[atCutoff!.id, pastCutoff!.id], [60_000, 61_000]],
    );
    const deps = { pool: pool(), drains: createDrainScheduler(queues, connection), metrics: createNotifierMetrics(), alertMaxAgeMs: 60_000 };
    const results = await routeAlerts(deps, [atCutoff!, pastCutoff!, undated!].map((item) => ({ payload: { feedItemId: item.id, userId: user }, log })));

    expect(results.map((result) => result.created)).toEqual([3, 3, 3]);
    const { rows } = await pool().query<{ feed_item_id: string; channel_id: string; status: string; late: boolean; next_attempt_at: Date | null; last_error: string | null }>(
      'SELECT feed_item_id, channel_id, status, late, next_attempt_at, last_error FROM deliveries WHERE user_id = $1',
      [user],
    );
    const of = (item: { id: string }, channel: string) => rows.find((row) => row.feed_item_id === item.id && row.channel_id === channel);
    for (const item of [atCutoff!, undated!]) {
      for (const channel of [json.id, discord.id, bot]) expect(of(item, channel)).toMatchObject({ status: 'pending', late: false, last_error: null });
    }
    expect(of(pastCutoff!, json.id)).toMatchObject({ status: 'pending', late: true, last_error: null });
    for (const channel of [discord.id, bot]) {
      expect(of(pastCutoff!, channel)).toMatchObject({ status: 'skipped', late: true, next_attempt_at: null });
      expect(of(pastCutoff!, channel)!.last_error).toBe(
        'not sent: a late alert, detected 61 s after it was posted (more than ALERT_MAX_AGE_SECONDS, 60); chat platforms get no catch-up alerts',
      );
    }
    const metrics = await deps.metrics.render();
    expect(metrics).toMatch(/hashwatch_deliveries_total\{kind="discord",outcome="skipped",app="notifier"\} 1/);
    expect(metrics).toMatch(/hashwatch_deliveries_total\{kind="telegram",outcome="skipped",app="notifier"\} 1/);
  });

  it('wakes the drain of each routed channel', async () => {
    const user = await newAccount(env.database);
    const channel = await addWebhook(pool(), user, { url });
    const [item] = await storeFeedItems(pool(), [post(user)]);

    await route(item!.id, user);

    const jobs = await queues.byName['alert-deliveries'].getJobs(['waiting']);
    expect(jobs.map((job) => job.data)).toContainEqual({ channelId: channel.id });
  });

  describe('route-alerts jobs', () => {
    // Deliveries of the notifier started here are never sent: the drains only find a closed port.
    const closedPort = 'http://127.0.0.1:9/hook';
    const deliveriesFor = async (feedItemIds: string[]) => {
      const { rows } = await pool().query<{ feed_item_id: string; channel_id: string }>(
        'SELECT feed_item_id, channel_id FROM deliveries WHERE feed_item_id = ANY($1) ORDER BY feed_item_id, channel_id',
        [feedItemIds],
      );
      return rows;
    };
    const batcher = (routingPool: pg.Pool = pool()) =>
      createRouteBatcher({ pool: routingPool, drains: createDrainScheduler(queues, connection), metrics: createNotifierMetrics(), alertMaxAgeMs: 900_000 });

    it('routes the 500 items of one job in one statement pair', async () => {
      const user = await newAccount(env.database);
      await addWebhook(pool(), user, { url: closedPort });
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
        await addWebhook(pool(), alice, { url: closedPort });
        await addWebhook(pool(), alice, { url: closedPort, hashtags: ['btc'] });
        await addWebhook(pool(), bob, { url: closedPort });
        const items = [...(await storeFeedItems(pool(), [post(alice), post(alice)])), ...(await storeFeedItems(pool(), [post(bob)]))];
        const [aliceJob, bobJob] = routeAlertsJobs(items.slice(0, 2).map((item) => ({ feedItemId: item.id, userId: alice })))
          .concat(routeAlertsJobs([{ feedItemId: items[2]!.id, userId: bob }]));
        handle = await startTestNotifier(pool(), { redisTarget: env.redisTarget, prefix: env.queuePrefix, notifier: { localDrains: 0 } });
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
    });

    it('routes the other items of a batch when one item cannot be routed, fails the job, and its retry duplicates nothing', async () => {
      const good = await newAccount(env.database);
      const bad = await newAccount(env.database);
      await addWebhook(pool(), good, { url: closedPort });
      await addWebhook(pool(), bad, { url: closedPort });
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
      await addWebhook(pool(), user, { url: closedPort });
      const stored = await storeFeedItems(pool(), Array.from({ length: 6 }, () => post(user)));
      const missing = { feedItemId: 'post_missing', userId: user };
      const router = batcher();
      const payloads = stored.map((item) => ({ feedItemId: item.id, userId: user }));
      // The first job routes at once; the next three arrive meanwhile and share the next statement pair.
      const answers = await Promise.all([
        router.routeMany(payloads.slice(0, 1), log),
        router.routeMany([payloads[1]!, missing, payloads[2]!], log),
        router.routeMany([payloads[3]!], log).then(([result]) => result),
        router.routeMany(payloads.slice(4), log),
      ]);
      const routedOnce = { channels: 1, created: 1 };
      expect(answers).toEqual([[routedOnce], [routedOnce, { channels: 0, created: 0 }, routedOnce], routedOnce, [routedOnce, routedOnce]]);
    });
  });
});

import { jsonReply, type Receiver, useTestEnvironment, waitFor } from '@hashwatch/testing';
import { jobId } from '@hashwatch/queues';
import {
  addBot,
  addWebhook,
  deliveriesOf,
  jsonChannel,
  newAccount,
  post,
  sleep,
  startTestNotifier,
  storeFeedItems,
  type NotifierHandle,
} from '../test-support/notifier-fixture';
import { discordRateLimit, startDiscordReceiver, startJsonReceiver, startTelegramReceiver, telegramFlood } from '../test-support/receiver';

describe('delivery', () => {
  let handle: NotifierHandle | undefined;
  const receivers: Receiver[] = [];
  const token = '123456:test-token';
  let telegram: Receiver;
  // Declared before the environment's hooks so it runs first: the notifier stops before its database goes.
  afterAll(async () => {
    await handle?.stop();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;

  // One notifier replica at a time: tests that need other options stop it and start their own.
  beforeAll(async () => {
    telegram = await startTelegramReceiver(token);
    receivers.push(telegram);
    handle = await startTestNotifier(pool(), { redisTarget: env.redisTarget, prefix: env.queuePrefix, telegramBaseUrl: telegram.origin });
  });

  it('retries a receiver that fails 3 times and delivers once, with the same signed webhook-id on every attempt', async () => {
    const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
    receiver.script(jsonReply(500, { error: 'boom' }), jsonReply(503, { error: 'busy' }), { status: 502 });
    await storeFeedItems(pool(), [post(user)]);

    await receiver.waitForAccepted(1);
    await waitFor(async () => (await deliveriesOf(pool(), channelId))[0]?.status === 'delivered', 20_000, 'the deliveries delivered');

    const [delivery] = await deliveriesOf(pool(), channelId);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 4, last_status: 204, last_error: null });
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((request) => request.headers['webhook-id']))).toEqual(new Set([delivery!.message_id]));
    // The json receiver answers 401 to a bad signature, so the 204 proves every attempt was signed.
    expect(receiver.accepted).toHaveLength(1);
    await sleep(300);
    expect(receiver.received).toHaveLength(4);
  });

  it('never retries a Discord 429 before its retry_after of 2 s has passed', async () => {
    const discord = await startDiscordReceiver();
    receivers.push(discord);
    const user = await newAccount(env.database);
    const channel = await addWebhook(pool(), user, { url: discord.webhookUrl, format: 'discord' });
    discord.script(discordRateLimit(2));
    await storeFeedItems(pool(), [post(user)]);

    await discord.waitForAccepted(1, 10_000);

    const [limited, retried] = discord.received;
    expect(retried!.at - limited!.at).toBeGreaterThanOrEqual(2_000);
    await waitFor(async () => (await deliveriesOf(pool(), channel.id))[0]?.status === 'delivered', 20_000, 'the deliveries delivered');
    expect((await deliveriesOf(pool(), channel.id))[0]).toMatchObject({ attempts: 2, status: 'delivered' });
  });

  it('waits out a Discord bucket that its answer says is spent (X-RateLimit-Remaining 0) before the next message', async () => {
    const discord = await startDiscordReceiver();
    receivers.push(discord);
    const user = await newAccount(env.database);
    const channel = await addWebhook(pool(), user, { url: discord.webhookUrl, format: 'discord' });
    discord.script(jsonReply(200, { id: '1' }, { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '1.5' }));
    await storeFeedItems(pool(), [post(user), post(user)]);

    await discord.waitForAccepted(2, 10_000);

    const [first, second] = discord.received;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_500);
    // A pause is not a failure: both delivered on their first attempt.
    await waitFor(async () => (await deliveriesOf(pool(), channel.id)).every((d) => d.status === 'delivered'), 20_000, 'the deliveries delivered');
    expect((await deliveriesOf(pool(), channel.id)).map((d) => d.attempts)).toEqual([1, 1]);
  });

  it('obeys Telegram flood control (parameters.retry_after) for the whole chat', async () => {
    const user = await newAccount(env.database);
    const bot = await addBot(pool(), user, { token, chatId: '42' });
    telegram.script(telegramFlood(1));
    await storeFeedItems(pool(), [post(user), post(user)]);

    await telegram.waitForAccepted(2, 15_000);

    const [flooded, first, second] = telegram.received;
    expect(first!.at - flooded!.at).toBeGreaterThanOrEqual(1_000);
    // Telegram asks bots for no more than one message per second to one chat (its Bot FAQ).
    // The pace spaces sends by 1 s; arrival can drift by the time between reserving and sending (a claim query).
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(800);
    await waitFor(async () => (await deliveriesOf(pool(), bot)).every((d) => d.status === 'delivered'), 20_000, 'the deliveries delivered');
  });

  it('follows a group that became a supergroup (migrate_to_chat_id): updates the chat id and resends there once', async () => {
    const user = await newAccount(env.database);
    const bot = await addBot(pool(), user, { token, chatId: '-4242' });
    // Telegram's answer to a message for a group that was upgraded to a supergroup: the new id in parameters.
    telegram.script(
      jsonReply(400, {
        ok: false,
        error_code: 400,
        description: 'Bad Request: group chat was upgraded to a supergroup chat',
        parameters: { migrate_to_chat_id: -1001234567890 },
      }),
    );
    const before = telegram.received.length;
    await storeFeedItems(pool(), [post(user)]);

    await waitFor(async () => (await deliveriesOf(pool(), bot))[0]?.status === 'delivered', 20_000, 'the deliveries delivered');
    const sent = telegram.received.slice(before);
    expect(sent.map((request) => request.json?.chat_id)).toEqual(['-4242', '-1001234567890']);
    const { rows } = await pool().query('SELECT chat_id, enabled, disabled_reason FROM notification_channels WHERE id = $1', [bot]);
    expect(rows[0]).toEqual({ chat_id: '-1001234567890', enabled: true, disabled_reason: null });
    // The migration is the channel's change, not a failed attempt of the delivery.
    expect((await deliveriesOf(pool(), bot))[0]).toMatchObject({ attempts: 1, status: 'delivered' });
  });

  it('sends a post with a photo to the bot as sendPhoto with an HTML caption, and the bot stays enabled', async () => {
    const user = await newAccount(env.database);
    const bot = await addBot(pool(), user, { token, chatId: '-100777' });
    const photo = 'https://pbs.twimg.com/media/FlqYpJ8XwAAJ2aT.jpg';
    const before = telegram.received.length;
    await storeFeedItems(pool(), [
      post(user, {
        text: 'fish & chips <3',
        media: [{ type: 'photo', url: photo, preview_image_url: null, width: 1200, height: 675, alt_text: null }],
      }),
    ]);

    await waitFor(async () => (await deliveriesOf(pool(), bot))[0]?.status === 'delivered', 20_000, 'the delivery delivered');
    const sent = telegram.received.slice(before);
    expect(sent.map((request) => request.path)).toEqual([`/bot${token}/sendPhoto`]);
    const body = sent[0]!.json!;
    expect(body).toMatchObject({ chat_id: '-100777', photo, parse_mode: 'HTML' });
    expect(body).not.toHaveProperty('text');
    // The author's text escaped once for Telegram's HTML, never twice.
    expect(body.caption).toEqual(expect.stringContaining('fish &amp; chips &lt;3'));
    expect(body.caption).not.toContain('&amp;amp;');
    expect((await deliveriesOf(pool(), bot))[0]).toMatchObject({ attempts: 1, status: 'delivered', last_status: 200 });
    const { rows } = await pool().query('SELECT enabled, disabled_reason FROM notification_channels WHERE id = $1', [bot]);
    expect(rows[0]).toEqual({ enabled: true, disabled_reason: null });
  });

  it('sends a json channel the hashtag and account as the feed item has them, in the case the track was written', async () => {
    const { receiver, user } = await jsonChannel(env.database, receivers);
    // Sources are stored lower-case; the item keeps the track's own spelling, which GET /v1/posts shows.
    const [tagged, authored] = await storeFeedItems(pool(), [
      post(user, { hashtag: 'NIO', sources: ['$nio'] }),
      post(user, { type: 'account', hashtag: null, account: 'BaldManGamer', sources: ['@baldmangamer'] }),
    ]);

    await receiver.waitForAccepted(2);
    const payloads = new Map(receiver.accepted.map((request) => [(request.json!.post as { id: string }).id, request.json!.post]));
    expect(payloads.get(tagged!.id)).toMatchObject({ hashtag: 'NIO', account: null, source: '$nio' });
    expect(payloads.get(authored!.id)).toMatchObject({ hashtag: null, account: 'BaldManGamer', source: '@baldmangamer' });
  });

  it('fails a delivery answered with a permanent 400 and never tries it again', async () => {
    const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
    receiver.script(jsonReply(400, { error: 'unknown field' }));
    await storeFeedItems(pool(), [post(user)]);

    await waitFor(async () => (await deliveriesOf(pool(), channelId))[0]?.status === 'failed', 20_000, 'the deliveries failed');
    await sleep(500);

    const [delivery] = await deliveriesOf(pool(), channelId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status: 400 });
    expect(delivery!.last_error).toMatch(/the receiver answered 400/);
    expect(receiver.received).toHaveLength(1);
  });

  it('disables a Discord channel whose webhook answers 404, says why, and sends nothing more to it', async () => {
    const discord = await startDiscordReceiver();
    receivers.push(discord);
    const user = await newAccount(env.database);
    const channel = await addWebhook(pool(), user, { url: discord.deletedWebhookUrl, format: 'auto' });
    await pool().query(`UPDATE notification_channels SET format = 'discord' WHERE id = $1`, [channel.id]);
    await storeFeedItems(pool(), [post(user), post(user), post(user)]);

    await waitFor(async () => (await deliveriesOf(pool(), channel.id)).length === 3 && (await deliveriesOf(pool(), channel.id)).every((d) => d.status === 'failed'), 20_000, 'the deliveries failed');
    await storeFeedItems(pool(), [post(user)]);
    await sleep(800);

    const { rows } = await pool().query('SELECT enabled, disabled_reason FROM notification_channels WHERE id = $1', [channel.id]);
    expect(rows[0].enabled).toBe(false);
    expect(rows[0].disabled_reason).toMatch(/Discord webhook not found \(deleted\): Unknown Webhook/);
    expect(discord.received).toHaveLength(1);
    const deliveries = await deliveriesOf(pool(), channel.id);
    // The one sent (the first routed) failed with the 404; the others were never sent.
    const sent = deliveries.filter((d) => d.last_status === 404);
    expect(sent).toHaveLength(1);
    expect(deliveries.filter((d) => d !== sent[0]).every((d) => d.last_error?.startsWith('not sent: the channel was disabled'))).toBe(true);
    // Routing no longer creates deliveries for it.
    expect(deliveries).toHaveLength(3);
  });

  it('gives up once the retry window has passed and records how many attempts were made', async () => {
    const receiver = await startJsonReceiver(() => '');
    receivers.push(receiver);
    const user = await newAccount(env.database);
    const channel = await addWebhook(pool(), user, { url: `${receiver.origin}/hook` });
    // Every answer is a 503: the receiver is down for good.
    for (let i = 0; i < 100; i += 1) receiver.script({ status: 503 });
    await handle?.stop();
    handle = undefined;
    const notifier = await startTestNotifier(pool(), { redisTarget: env.redisTarget, prefix: env.queuePrefix, notifier: { retryWindowMs: 600 } });
    try {
      await storeFeedItems(pool(), [post(user)]);
      await waitFor(async () => (await deliveriesOf(pool(), channel.id))[0]?.status === 'failed', 15_000, 'the deliveries failed');
      const [delivery] = await deliveriesOf(pool(), channel.id);
      expect(delivery!.last_error).toMatch(/^gave up after \d+ attempts: the receiver answered 503/);
      expect(delivery!.attempts).toBeGreaterThan(1);
    } finally {
      await notifier.stop();
      handle = await startTestNotifier(pool(), { redisTarget: env.redisTarget, prefix: env.queuePrefix, telegramBaseUrl: telegram.origin });
    }
  });

  it('sends every delivery waiting for a retry as soon as the target takes a message again, not at its backoff', async () => {
    const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
    // The target is down for the first three messages; backoffs of 30 s and more keep them waiting.
    receiver.script({ status: 503 }, { status: 503 }, { status: 503 });
    await handle?.stop();
    handle = undefined;
    const notifier = await startTestNotifier(pool(), { redisTarget: env.redisTarget, prefix: env.queuePrefix, notifier: { backoffBaseMs: 60_000, maxBackoffMs: 120_000 } });
    try {
      await storeFeedItems(pool(), [post(user), post(user), post(user)]);
      await receiver.waitForReceived(3, 10_000);
      await waitFor(async () => (await deliveriesOf(pool(), channelId)).every((d) => d.last_status === 503), 5_000, 'three failures recorded');
      const waiting = await deliveriesOf(pool(), channelId);
      expect(waiting.every((d) => d.status === 'pending' && d.next_attempt_at!.getTime() > Date.now() + 20_000)).toBe(true);

      // A new alert, long before any backoff ends: the target takes it, so it is back for the waiting ones too.
      await storeFeedItems(pool(), [post(user)]);
      await waitFor(async () => {
        const rows = await deliveriesOf(pool(), channelId);
        return rows.length === 4 && rows.every((d) => d.status === 'delivered');
      }, 5_000, 'every delivery delivered');
      const delivered = await deliveriesOf(pool(), channelId);
      expect(delivered.map((d) => d.attempts)).toEqual([2, 2, 2, 1]);
      expect(new Set(receiver.accepted.map((request) => request.headers['webhook-id']))).toEqual(new Set(delivered.map((d) => d.message_id)));
      expect(receiver.accepted).toHaveLength(4);
    } finally {
      await notifier.stop();
      handle = await startTestNotifier(pool(), { redisTarget: env.redisTarget, prefix: env.queuePrefix, telegramBaseUrl: telegram.origin });
    }
  });

  it('sends a failed delivery again when the gateway queues a retry for it, with the same webhook-id', async () => {
    const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
    receiver.script(jsonReply(400, { error: 'fix me' }));
    await storeFeedItems(pool(), [post(user)]);
    await waitFor(async () => (await deliveriesOf(pool(), channelId))[0]?.status === 'failed', 20_000, 'the deliveries failed');
    const [failed] = await deliveriesOf(pool(), channelId);

    // What POST /notifications/deliveries/{id}/retry commits.
    await pool().query(`UPDATE deliveries SET status = 'pending', next_attempt_at = now() WHERE id = $1`, [failed!.id]);
    await pool().query(`INSERT INTO outbox_jobs (queue, name, job_id, payload) VALUES ('alert-deliveries', 'deliver-alert', $1, $2)`, [
      jobId('deliver', failed!.id, 'retry', 1),
      JSON.stringify({ deliveryId: failed!.id }),
    ]);

    await receiver.waitForAccepted(1);
    await waitFor(async () => (await deliveriesOf(pool(), channelId))[0]?.status === 'delivered', 20_000, 'the deliveries delivered');
    expect(receiver.received.map((request) => request.headers['webhook-id'])).toEqual([failed!.message_id, failed!.message_id]);
    expect((await deliveriesOf(pool(), channelId))[0]).toMatchObject({ attempts: 2, last_error: null });
  });
});

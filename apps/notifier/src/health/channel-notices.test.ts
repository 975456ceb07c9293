import { jsonReply, type Receiver, startReceiver, useTestEnvironment, waitFor } from '@hashwatch/testing';
import { addBot, addWebhook, jsonChannel, newAccount, post, sleep, startTestNotifier, storeFeedItems, type NotifierHandle } from '../test-support/notifier-fixture';
import { startDiscordReceiver } from '../test-support/receiver';

interface NoticeRow {
  id: string;
  kind: string;
  subject: string;
  channel_id: string | null;
  message: string;
  resolved_at: Date | null;
}

// Short enough for a test, in the same order as CONTRACT 8's 1 h and 24 h.
const FAILING_AFTER_MS = 2_000;
const DISABLE_AFTER_MS = 5_000;

describe('channel notices', () => {
  const handles: NotifierHandle[] = [];
  const receivers: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(handles.map((handle) => handle.stop()));
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  const token = '123456:health-token';
  // The Bot API's sendMessage, answering 403 while the bot is out of the chat (Telegram's answer when it was
  // kicked), and a message id once it is back.
  const telegramState = { blocked: true };
  let telegram: Receiver;

  // Two replicas with the same short clocks: every test runs with both, so each one also shows the replicas
  // raise and resolve each notice once.
  beforeAll(async () => {
    telegram = await startReceiver((request) => {
      if (request.path !== `/bot${token}/sendMessage`) return jsonReply(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      if (telegramState.blocked) return jsonReply(403, { ok: false, error_code: 403, description: 'Forbidden: bot was kicked from the group chat' });
      return jsonReply(200, { ok: true, result: { message_id: 1, text: request.json?.text } });
    });
    receivers.push(telegram);
    for (let replica = 0; replica < 2; replica += 1) {
      handles.push(
        await startTestNotifier(pool(), {
          redisTarget: env.redisTarget,
          prefix: env.queuePrefix,
          telegramBaseUrl: telegram.origin,
          notifier: { channelFailingAfterMs: FAILING_AFTER_MS, channelDisableAfterMs: DISABLE_AFTER_MS },
        }),
      );
    }
  });

  async function noticesOf(channelId: string): Promise<NoticeRow[]> {
    const { rows } = await pool().query<NoticeRow>(
      'SELECT id, kind, subject, channel_id, message, resolved_at FROM notices WHERE channel_id = $1 ORDER BY opened_at, kind',
      [channelId],
    );
    return rows;
  }

  async function channelRow(channelId: string) {
    const { rows } = await pool().query<{ enabled: boolean; disabled_reason: string | null; failing_since: Date | null; failure_noticed: boolean }>(
      'SELECT enabled, disabled_reason, failing_since, failure_noticed FROM notification_channels WHERE id = $1',
      [channelId],
    );
    return rows[0];
  }

  /** What PUT /notifications runs when the account saves the channel with `enabled: true` (notifications.service.ts). */
  async function turnBackOn(channelId: string, url?: string): Promise<void> {
    await pool().query(
      `UPDATE notification_channels
          SET url = COALESCE($2, url), enabled = true, disabled_reason = NULL, updated_at = now(),
              failing_since = CASE WHEN NOT enabled OR url IS DISTINCT FROM COALESCE($2, url) THEN NULL ELSE failing_since END
        WHERE id = $1`,
      [channelId, url ?? null],
    );
  }

  /** Both replicas run their checks at once, a few times, on top of their sweepers. */
  async function checkOnBoth(times = 3): Promise<void> {
    for (let i = 0; i < times; i += 1) await Promise.all(handles.map((handle) => handle.notifier.checkNotices()));
  }

  it('raises one channel_failing at the first Telegram 403, switches the bot off, and resolves it once a send succeeds again', async () => {
    telegramState.blocked = true;
    const user = await newAccount(env.database);
    const bot = await addBot(pool(), user, { token, chatId: '-100200300' });
    await storeFeedItems(pool(), [post(user)]);
    await waitFor(async () => (await noticesOf(bot)).length > 0, 15_000, 'the channel_failing notice');
    await storeFeedItems(pool(), [post(user)]);
    await checkOnBoth();
    await sleep(500);

    const [failing, ...more] = await noticesOf(bot);
    expect(more).toEqual([]);
    expect(failing).toMatchObject({ kind: 'channel_failing', subject: bot, channel_id: bot, resolved_at: null });
    expect(failing?.message).toMatch(/^Telegram refused the bot \(403\): Telegram answered 403: Forbidden: bot was kicked from the group chat\. .*re-add the bot to the chat/);
    // Refused for good: never retried for ever. One request, the channel off with the reason.
    expect(telegram.received).toHaveLength(1);
    expect(await channelRow(bot)).toMatchObject({ enabled: false, disabled_reason: expect.stringMatching(/^Telegram answered 403/) as unknown, failure_noticed: true });

    // The bot is added back to the chat and the channel turned back on: the next alert goes out and resolves it.
    telegramState.blocked = false;
    await turnBackOn(bot);
    await storeFeedItems(pool(), [post(user)]);
    await telegram.waitForAccepted(1, 15_000);
    await waitFor(async () => (await noticesOf(bot))[0]?.resolved_at !== null, 10_000, 'the resolution');
    await storeFeedItems(pool(), [post(user)]);
    await telegram.waitForAccepted(2, 15_000);
    await checkOnBoth();

    const after = await noticesOf(bot);
    expect(after).toHaveLength(1);
    expect(after[0]?.id).toBe(failing?.id);
    expect(await channelRow(bot)).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null, failure_noticed: false });
  });

  it('raises one channel_failing for a deleted Discord webhook (404), saying so, and tells again when it is turned on unfixed', async () => {
    const discord = await startDiscordReceiver();
    receivers.push(discord);
    const user = await newAccount(env.database);
    const channel = await addWebhook(pool(), user, { url: discord.deletedWebhookUrl, format: 'discord' });
    await storeFeedItems(pool(), [post(user), post(user)]);
    await waitFor(async () => (await noticesOf(channel.id)).length > 0, 15_000, 'the channel_failing notice');
    await checkOnBoth();

    const [failing, ...more] = await noticesOf(channel.id);
    expect(more).toEqual([]);
    expect(failing).toMatchObject({ kind: 'channel_failing', resolved_at: null });
    expect(failing?.message).toMatch(/^The Discord webhook was deleted in Discord \(404\): Discord webhook not found \(deleted\): Unknown Webhook \(code 10015\)\..*create a webhook/);
    expect(discord.received).toHaveLength(1);

    // Turned back on without a new webhook: refused again, switched off again, and told so by channel_disabled.
    await turnBackOn(channel.id);
    await storeFeedItems(pool(), [post(user)]);
    await waitFor(async () => (await noticesOf(channel.id)).length > 1, 15_000, 'the second notice');
    await checkOnBoth();
    expect((await noticesOf(channel.id)).map((notice) => [notice.kind, notice.resolved_at])).toEqual([
      ['channel_failing', null],
      ['channel_disabled', null],
    ]);

    // A new webhook URL, turned on: the disabled notice resolves at once, the failing one with the first send.
    await turnBackOn(channel.id, discord.webhookUrl);
    await waitFor(async () => (await noticesOf(channel.id))[1]?.resolved_at !== null, 10_000, 'channel_disabled resolved');
    expect((await noticesOf(channel.id))[0]?.resolved_at).toBeNull();
    await storeFeedItems(pool(), [post(user)]);
    await discord.waitForAccepted(1, 15_000);
    await waitFor(async () => (await noticesOf(channel.id)).every((notice) => notice.resolved_at !== null), 10_000, 'every notice resolved');
    await checkOnBoth();
    expect(await noticesOf(channel.id)).toHaveLength(2);
  });

  it('raises one channel_failing after the failing span of 500s, switches the webhook off with channel_disabled after the longer one', async () => {
    // A receiver whose database is down: 500 to everything until it is fixed.
    const state = { failing: true };
    const receiver = await startReceiver(() => (state.failing ? jsonReply(500, { error: 'database down' }) : { status: 204 }));
    receivers.push(receiver);
    const user = await newAccount(env.database);
    const { id: channelId } = await addWebhook(pool(), user, { url: `${receiver.origin}/hook`, format: 'json' });
    await storeFeedItems(pool(), [post(user)]);
    await receiver.waitForReceived(1, 10_000);
    const started = Date.now();
    await waitFor(async () => (await channelRow(channelId))?.failing_since instanceof Date, 5_000, 'failing_since set');
    expect(await channelRow(channelId)).toMatchObject({ failure_noticed: false });
    expect(await noticesOf(channelId)).toEqual([]);

    await waitFor(async () => (await noticesOf(channelId)).length > 0, 10_000, 'channel_failing');
    expect(Date.now() - started).toBeGreaterThanOrEqual(FAILING_AFTER_MS - 300);
    await checkOnBoth();
    const [notice, ...none] = await noticesOf(channelId);
    expect(none).toEqual([]);
    expect(notice).toMatchObject({ kind: 'channel_failing', resolved_at: null });
    expect(notice?.message).toMatch(/^The webhook has failed every send for more than 2 s \(since .* UTC\)\. The last attempt: the receiver answered 500: .*database down.*Alerts wait and are retried: check that the receiver is up and answers 2xx\. After 5 s of failures the channel is switched off\./);
    expect(await channelRow(channelId)).toMatchObject({ enabled: true, failure_noticed: true });

    await waitFor(async () => (await channelRow(channelId))?.enabled === false, 10_000, 'the channel switched off');
    expect(Date.now() - started).toBeGreaterThanOrEqual(DISABLE_AFTER_MS - 300);
    await checkOnBoth();
    const both = await noticesOf(channelId);
    expect(both.map((row) => [row.kind, row.resolved_at])).toEqual([
      ['channel_failing', null],
      ['channel_disabled', null],
    ]);
    expect(both[1]?.message).toMatch(/^The webhook failed every send for 5 s since .* UTC \(the last attempt: the receiver answered 500.*\), so Hashwatch switched it off/);
    expect((await channelRow(channelId))?.disabled_reason).toMatch(/^failed every send for 5 s; the last attempt: the receiver answered 500/);
    const { rows: pending } = await pool().query(`SELECT 1 FROM deliveries WHERE channel_id = $1 AND status = 'pending'`, [channelId]);
    expect(pending).toEqual([]);

    // Fixed and turned back on: channel_disabled resolves at once; the next send resolves channel_failing.
    state.failing = false;
    await turnBackOn(channelId);
    await waitFor(async () => (await noticesOf(channelId))[1]?.resolved_at !== null, 10_000, 'channel_disabled resolved');
    const seen = receiver.accepted.length;
    await storeFeedItems(pool(), [post(user)]);
    await receiver.waitForAccepted(seen + 1, 15_000);
    await waitFor(async () => (await noticesOf(channelId))[0]?.resolved_at !== null, 10_000, 'channel_failing resolved');
    await checkOnBoth();
    expect(await noticesOf(channelId)).toHaveLength(2);
    expect(await channelRow(channelId)).toMatchObject({ enabled: true, failing_since: null, failure_noticed: false });
  });

  it('raises nothing for a channel that refused one message (a 400, not retried) and had nothing more to send', async () => {
    const receiver = await startReceiver(() => jsonReply(400, { error: 'this one field is not accepted' }));
    receivers.push(receiver);
    const user = await newAccount(env.database);
    const { id: channelId } = await addWebhook(pool(), user, { url: `${receiver.origin}/hook`, format: 'json' });
    await storeFeedItems(pool(), [post(user)]);
    await receiver.waitForReceived(1, 10_000);
    await waitFor(async () => (await channelRow(channelId))?.failing_since instanceof Date, 5_000, 'failing_since set');
    // Past both spans, with the checks of both replicas run: nothing is being retried, so nothing is failing.
    await sleep(DISABLE_AFTER_MS + 1_000);
    await checkOnBoth();
    expect(await noticesOf(channelId)).toEqual([]);
    expect(await channelRow(channelId)).toMatchObject({ enabled: true, disabled_reason: null, failure_noticed: false });
  });

  it('tells a json receiver answering 404 at once, keeps sending to it, and resolves once it takes an alert', async () => {
    const state = { gone: true };
    const receiver = await startReceiver(() => (state.gone ? jsonReply(404, { error: 'no route /hook' }) : { status: 204 }));
    receivers.push(receiver);
    const user = await newAccount(env.database);
    const { id: channelId } = await addWebhook(pool(), user, { url: `${receiver.origin}/hook`, format: 'json' });
    await storeFeedItems(pool(), [post(user), post(user)]);
    await waitFor(async () => (await noticesOf(channelId)).length > 0, 10_000, 'channel_failing');
    await receiver.waitForReceived(2, 10_000);
    await checkOnBoth();
    const [notice, ...none] = await noticesOf(channelId);
    expect(none).toEqual([]);
    expect(notice).toMatchObject({ kind: 'channel_failing', resolved_at: null });
    expect(notice?.message).toMatch(/^The webhook refused an alert \(404\): the receiver answered 404: .*no route \/hook.*It says the address no longer exists there/);
    // Not switched off for it: the next alert is sent, and taken once the receiver is back.
    expect(await channelRow(channelId)).toMatchObject({ enabled: true, disabled_reason: null, failure_noticed: true });
    state.gone = false;
    await storeFeedItems(pool(), [post(user)]);
    await receiver.waitForAccepted(1, 10_000);
    await waitFor(async () => (await noticesOf(channelId))[0]?.resolved_at !== null, 10_000, 'the resolution');
    await checkOnBoth();
    expect(await noticesOf(channelId)).toHaveLength(1);
  });

  it('clears a failure that a success follows within the failing span: no notice', async () => {
    const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
    receiver.script(jsonReply(503, { error: 'busy' }));
    await storeFeedItems(pool(), [post(user)]);
    await receiver.waitForAccepted(1, 10_000);
    await waitFor(async () => (await channelRow(channelId))?.failing_since === null, 5_000, 'failing_since cleared');
    await sleep(FAILING_AFTER_MS + 300);
    await checkOnBoth();
    expect(await noticesOf(channelId)).toEqual([]);
  });
});

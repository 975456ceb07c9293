import { newId, transaction } from '@hashwatch/db';
import { insertFeedItems } from '@hashwatch/feed';
import { type Receiver, startReceiver, useTestEnvironment, waitFor } from '@hashwatch/testing';
import { messageIdFor } from '../delivery/delivery-store';
import {
  addBot,
  addWebhook,
  deliveriesOf,
  newAccount,
  post,
  sleep,
  startTestNotifier,
  storeFeedItems,
  type NotifierHandle,
} from '../test-support/notifier-fixture';
import { startDiscordReceiver, startJsonReceiver, startTelegramReceiver } from '../test-support/receiver';

const MAX_AGE_MS = 60_000;
const token = '123456:late-token';

/** Posted long before it was detected: what a scanner catching up after an outage stores. */
const latePost = (user: string, text: string) => post(user, { text, postedAt: new Date(Date.now() - 20 * 60_000) });
const freshPost = (user: string, text: string) => post(user, { text, postedAt: new Date(Date.now() - 5_000) });

describe('late alerts (catch-up after an outage)', () => {
  let handle: NotifierHandle | undefined;
  const receivers: Receiver[] = [];
  let telegram: Receiver;
  // Declared before the environment's hooks so it runs first: the notifier stops before its database goes.
  afterAll(async () => {
    await handle?.stop();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;

  beforeAll(async () => {
    telegram = await startTelegramReceiver(token);
    receivers.push(telegram);
    handle = await startTestNotifier(pool(), {
      redisTarget: env.redisTarget,
      prefix: env.queuePrefix,
      telegramBaseUrl: telegram.origin,
      notifier: { alertMaxAgeMs: MAX_AGE_MS },
    });
  });

  /** An account with one channel of every kind: json, Discord, Slack and the Telegram bot. */
  async function everyKind() {
    let secret = '';
    const json = await startJsonReceiver(() => secret);
    const discord = await startDiscordReceiver();
    // Slack's incoming webhooks answer 200 with the body `ok`.
    const slack = await startReceiver(() => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' }));
    receivers.push(json, discord, slack);
    const user = await newAccount(env.database);
    const jsonChannel = await addWebhook(pool(), user, { url: `${json.origin}/hook` });
    secret = jsonChannel.secret;
    const discordChannel = await addWebhook(pool(), user, { url: discord.webhookUrl, format: 'discord' });
    const slackChannel = await addWebhook(pool(), user, { url: `${slack.origin}/services/T/B/x`, format: 'slack' });
    const botChannel = await addBot(pool(), user, { token, chatId: `${Date.now()}` });
    return { user, json, discord, slack, channels: { json: jsonChannel.id, discord: discordChannel.id, slack: slackChannel.id, bot: botChannel } };
  }

  const telegramTexts = (chatId: string) =>
    telegram.accepted.filter((request) => String(request.json?.chat_id) === chatId).map((request) => String(request.json?.text));

  it('sends a late item to json channels once with late: true, to no chat platform, and logs those deliveries skipped', async () => {
    const { user, json, discord, slack, channels } = await everyKind();
    const chatId = (await pool().query<{ chat_id: string }>('SELECT chat_id FROM notification_channels WHERE id = $1', [channels.bot])).rows[0]!.chat_id;
    const [late] = await storeFeedItems(pool(), [latePost(user, 'caught up late')]);
    const [fresh] = await storeFeedItems(pool(), [freshPost(user, 'fresh news')]);

    await json.waitForAccepted(2, 15_000);
    await discord.waitForAccepted(1, 15_000);
    await slack.waitForAccepted(1, 15_000);
    await waitFor(() => telegramTexts(chatId).length >= 1, 15_000, 'the bot alert');
    // Whatever was going to be sent has been: more time sends nothing else.
    await sleep(1_000);

    const bodies = json.accepted.map((request) => request.json!);
    const lateBody = bodies.find((body) => (body.post as { id: string }).id === late!.id);
    const freshBody = bodies.find((body) => (body.post as { id: string }).id === fresh!.id);
    expect(bodies).toHaveLength(2);
    expect(Object.keys(lateBody!)).toEqual(['type', 'post', 'text', 'late']);
    expect(lateBody).toMatchObject({ type: 'post', late: true });
    expect(freshBody).not.toHaveProperty('late');

    expect(discord.received).toHaveLength(1);
    expect(discord.received[0]!.body).toContain('fresh news');
    expect(slack.received).toHaveLength(1);
    expect(slack.received[0]!.body).toContain('fresh news');
    expect(telegramTexts(chatId)).toHaveLength(1);
    expect(telegramTexts(chatId)[0]).toContain('fresh news');

    for (const channel of [channels.discord, channels.slack, channels.bot]) {
      const rows = await deliveriesOf(pool(), channel);
      const skipped = rows.find((row) => row.feed_item_id === late!.id);
      expect(skipped).toMatchObject({ status: 'skipped', attempts: 0, next_attempt_at: null, delivered_at: null, late: true });
      expect(skipped!.last_error).toMatch(/^not sent: a late alert, detected 1[23]\d\d s after it was posted \(more than ALERT_MAX_AGE_SECONDS, 60\)/);
      expect(rows.find((row) => row.feed_item_id === fresh!.id)).toMatchObject({ status: 'delivered', late: false });
    }
    const jsonRows = await deliveriesOf(pool(), channels.json);
    expect(jsonRows.map((row) => [row.feed_item_id, row.status, row.late])).toEqual([
      [late!.id, 'delivered', true],
      [fresh!.id, 'delivered', false],
    ]);
  });

  it('keeps late items out of chat digests: a Discord backlog of late and timely items folds only the timely ones', async () => {
    const { user, discord, channels } = await everyKind();
    // Stored in one batch, late and timely mixed, more than the digest threshold (20) of each.
    const items = Array.from({ length: 50 }, (_, index) => (index % 2 === 0 ? latePost(user, `old-${index}`) : freshPost(user, `new-${index}`)));
    await storeFeedItems(pool(), items);

    await waitFor(
      async () => (await deliveriesOf(pool(), channels.discord)).filter((row) => row.status === 'delivered').length === 25,
      30_000,
      'the timely Discord deliveries',
    );
    const rows = await deliveriesOf(pool(), channels.discord);
    expect(rows.filter((row) => row.status === 'skipped')).toHaveLength(25);
    const sent = discord.accepted.map((request) => request.body).join('\n');
    for (let index = 1; index < 50; index += 2) expect(sent).toContain(`new-${index}`);
    expect(sent).not.toMatch(/old-\d/);
    // Folded into digests: far fewer messages than alerts.
    expect(discord.accepted.length).toBeLessThan(25);
  });

  it('never sends a late delivery a chat channel finds pending (routed while the channel was json): it is skipped at the drain', async () => {
    const discord = await startDiscordReceiver();
    receivers.push(discord);
    const user = await newAccount(env.database);
    // Stored without a routing job: its delivery is written as routing wrote it for the json channel this was before.
    const { inserted } = await transaction(pool(), (client) => insertFeedItems(client, [latePost(user, 'routed as json')]));
    const item = inserted[0];
    const channel = await addWebhook(pool(), user, { url: discord.webhookUrl, format: 'discord' });
    await pool().query(
      `INSERT INTO deliveries (id, user_id, channel_id, feed_item_id, message_id, status, attempts, next_attempt_at, late)
       VALUES ($1, $2, $3, $4, $5, 'pending', 0, now(), true)`,
      [newId('dlv'), user, channel.id, item!.id, messageIdFor(channel.id, item!.id)],
    );

    await waitFor(async () => (await deliveriesOf(pool(), channel.id))[0]?.status === 'skipped', 15_000, 'the delivery skipped');
    expect((await deliveriesOf(pool(), channel.id))[0]).toMatchObject({ attempts: 0, next_attempt_at: null, delivered_at: null });
    expect(discord.received).toHaveLength(0);
  });
});

import { transaction } from '@hashwatch/db';
import { verifyWebhookSignature } from '@hashwatch/channels';
import { raiseNotice, resolveNotice, type NoticeCondition } from '@hashwatch/notices';
import { relayOutboxUntilEmpty } from '@hashwatch/outbox';
import { jsonReply, type Received, type Receiver, useTestEnvironment, waitFor } from '@hashwatch/testing';
import {
  addBot,
  addWebhook,
  newAccount,
  post,
  sleep,
  startTestNotifier,
  storeAndRelay,
  type NotifierHandle,
} from '../test-support/notifier-fixture';
import { discordRateLimit, startDiscordReceiver, startJsonReceiver, startSlackReceiver, startTelegramReceiver } from '../test-support/receiver';

interface NoticeSendRow {
  channel_id: string;
  state: string;
  status: string;
  attempts: number;
  last_status: number | null;
  delivered_at: Date | null;
}

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';

describe('notice delivery', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  const receivers: Receiver[] = [];
  const handles: NotifierHandle[] = [];
  let telegram: Receiver;

  beforeAll(async () => {
    telegram = await startTelegramReceiver(TOKEN);
    receivers.push(telegram);
    // Two replicas draining the same channels.
    for (let i = 0; i < 2; i += 1) {
      handles.push(await startTestNotifier(pool(), { redisTarget: env.redisTarget, prefix: env.queuePrefix, telegramBaseUrl: telegram.origin }));
    }
  });
  afterAll(async () => {
    await Promise.all(handles.map((handle) => handle.stop()));
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  async function track<T extends Receiver>(receiver: Promise<T>): Promise<T> {
    const started = await receiver;
    receivers.push(started);
    return started;
  }

  async function jsonWebhook(userId: string, notices: boolean | null) {
    let secret = '';
    const receiver = await track(startJsonReceiver(() => secret));
    const channel = await addWebhook(pool(), userId, { url: `${receiver.origin}/hook`, format: 'json' });
    secret = channel.secret;
    if (notices !== null) await pool().query('UPDATE notification_channels SET notices = $2 WHERE id = $1', [channel.id, notices]);
    return { receiver, id: channel.id, secret };
  }

  async function raise(condition: NoticeCondition, message: string) {
    const notice = await transaction(pool(), (client) => raiseNotice(client, condition, { message }));
    await relayOutboxUntilEmpty(pool(), handles[0]!.queues);
    return notice!;
  }

  async function resolve(condition: NoticeCondition) {
    const notice = await transaction(pool(), (client) => resolveNotice(client, condition));
    await relayOutboxUntilEmpty(pool(), handles[0]!.queues);
    return notice!;
  }

  async function sendsOf(noticeId: string): Promise<NoticeSendRow[]> {
    const { rows } = await pool().query<NoticeSendRow>(
      `SELECT channel_id, state, status::text AS status, attempts, last_status, delivered_at FROM notice_deliveries WHERE notice_id = $1 ORDER BY channel_id, state`,
      [noticeId],
    );
    return rows;
  }

  it('sends the opening and the resolution once to each channel that takes notices, never to the one it is about, on no alert quota', async () => {
    const userId = await newAccount(env.database);
    const discord = await track(startDiscordReceiver());
    const discordId = (await addWebhook(pool(), userId, { url: discord.webhookUrl, format: 'discord' })).id;
    const slack = await track(startSlackReceiver());
    const slackId = (await addWebhook(pool(), userId, { url: slack.webhookUrl, format: 'slack' })).id;
    const optedIn = await jsonWebhook(userId, true);
    const byDefault = await jsonWebhook(userId, null);
    const botId = await addBot(pool(), userId, { token: TOKEN, chatId: '4242' });

    // Slack is the failing channel: the notice is about it.
    const condition: NoticeCondition = { userId, kind: 'channel_failing', channelId: slackId };
    const notice = await raise(condition, 'Slack answers <500> & "server error" for an hour');
    await discord.waitForAccepted(1, 20_000);
    await optedIn.receiver.waitForAccepted(1, 20_000);
    await waitFor(() => telegram.accepted.some((request) => request.json?.chat_id === '4242'), 20_000, 'telegram notice');
    const resolved = await resolve(condition);
    await discord.waitForAccepted(2, 20_000);
    await optedIn.receiver.waitForAccepted(2, 20_000);
    await waitFor(() => telegram.accepted.filter((request) => request.json?.chat_id === '4242').length === 2, 20_000, 'telegram resolution');
    // Room for a second replica's duplicate to arrive, were there one.
    await sleep(1_500);

    expect(discord.received).toHaveLength(2);
    expect(optedIn.receiver.received).toHaveLength(2);
    expect(telegram.received.filter((request) => request.json?.chat_id === '4242')).toHaveLength(2);
    expect(slack.received).toHaveLength(0);
    expect(byDefault.receiver.received).toHaveLength(0);

    // json: {type: "notice", notice, text}, webhook-id <notice id>:<state>, signed with the channel's secret.
    const [openJson, resolvedJson] = optedIn.receiver.received as [Received, Received];
    expect(openJson.headers['webhook-id']).toBe(`${notice.id}:open`);
    expect(resolvedJson.headers['webhook-id']).toBe(`${notice.id}:resolved`);
    expect(verifyWebhookSignature(optedIn.secret, openJson.headers, openJson.body).valid).toBe(true);
    expect(openJson.json).toEqual({
      type: 'notice',
      notice: {
        id: notice.id,
        kind: 'channel_failing',
        state: 'open',
        source: null,
        channel_id: slackId,
        message: 'Slack answers <500> & "server error" for an hour',
        opened_at: notice.openedAt.toISOString(),
        resolved_at: null,
      },
      text: expect.stringContaining('⚠ Hashwatch notice: channel failing'),
    });
    expect(resolvedJson.json).toMatchObject({ type: 'notice', notice: { id: notice.id, state: 'resolved', resolved_at: resolved.resolvedAt!.toISOString() } });

    // Discord: the notice card, not an alert's.
    const [openEmbed, resolvedEmbed] = discord.received.map((request) => (request.json?.embeds as { title: string; color: number; description: string }[])[0]!);
    expect(openEmbed).toMatchObject({ title: '⚠ Hashwatch notice: channel failing', color: 0xffad1f });
    expect(openEmbed!.description).toContain(`Channel: ${slackId}`);
    expect(resolvedEmbed).toMatchObject({ title: '✅ Resolved: channel failing', color: 0x17bf63 });

    // Telegram: HTML the Bot API parsed (the receiver refuses what it cannot), the message escaped.
    const telegramTexts = telegram.received.filter((request) => request.json?.chat_id === '4242').map((request) => request.json?.text);
    expect(telegramTexts[0]).toContain('<b>⚠ Hashwatch notice: channel failing</b>');
    expect(telegramTexts[0]).toContain('Slack answers &lt;500&gt; &amp; "server error" for an hour');

    const sends = await sendsOf(notice.id);
    expect(sends.map((send) => `${send.channel_id}:${send.state}`).sort()).toEqual(
      [discordId, optedIn.id, botId].flatMap((id) => [`${id}:open`, `${id}:resolved`]).sort(),
    );
    expect(sends.every((send) => send.status === 'delivered' && send.attempts === 1 && send.delivered_at !== null)).toBe(true);
    const { rows: usage } = await pool().query<{ used: number }>('SELECT COALESCE(sum(alerts_used), 0)::int AS used FROM usage_periods WHERE user_id = $1', [userId]);
    expect(usage[0]?.used).toBe(0);
  });

  it('retries a notice the receiver answered 500, and waits out a 429 as the platform asked', async () => {
    const userId = await newAccount(env.database);
    const json = await jsonWebhook(userId, true);
    json.receiver.script(jsonReply(500, { error: 'down' }));
    const discord = await track(startDiscordReceiver());
    await addWebhook(pool(), userId, { url: discord.webhookUrl, format: 'discord' });
    discord.script(discordRateLimit(1.5));

    // A source notice: no check of the notifier's resolves it behind the test's back (a quota notice raised here,
    // without the usage behind it, would be resolved by the sweeper's quota check).
    const notice = await raise({ userId, kind: 'source_failing', source: '$tsla' }, 'X refuses the query for $tsla.');
    await json.receiver.waitForAccepted(1, 20_000);
    await discord.waitForAccepted(1, 20_000);

    const [failed, retried] = json.receiver.received as [Received, Received];
    expect(json.receiver.received).toHaveLength(2);
    expect(retried.headers['webhook-id']).toBe(failed.headers['webhook-id']);
    const [limited, sent] = discord.received as [Received, Received];
    expect(discord.received).toHaveLength(2);
    expect(sent.at - limited.at).toBeGreaterThanOrEqual(1_300);
    await waitFor(async () => (await sendsOf(notice.id)).every((send) => send.status === 'delivered'), 10_000, 'recorded');
    const byStatus = (await sendsOf(notice.id)).map((send) => [send.attempts, send.last_status]);
    expect(byStatus.sort()).toEqual([
      [2, 200],
      [2, 204],
    ]);
  });

  it('paces a notice with the alerts of the same chat (Telegram: one message a second)', async () => {
    const userId = await newAccount(env.database);
    await addBot(pool(), userId, { token: TOKEN, chatId: '5151' });
    const chat = () => telegram.received.filter((request) => request.json?.chat_id === '5151');
    await raise({ userId, kind: 'source_silent', source: '#btc' }, 'No post on #btc for 6 hours, against one every 20 minutes.');
    await storeAndRelay(pool(), handles[0]!.queues, [post(userId), post(userId)]);
    await waitFor(() => chat().length === 3, 20_000, 'three messages');
    const times = chat().map((request) => request.at);
    for (let i = 1; i < times.length; i += 1) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(800);
    expect(chat().filter((request) => String(request.json?.text).includes('Hashwatch notice: source silent'))).toHaveLength(1);
  });
});

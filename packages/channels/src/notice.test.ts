import {
  createSender,
  deliver,
  discordChannel,
  generateSigningSecret,
  jsonChannel,
  slackChannel,
  telegramChannel,
  verifyWebhookSignature,
  type SystemNotice,
} from './index';
import { channel } from './test-support/alerts';
import { startFakeDiscord, type FakeDiscord } from './test-support/fake-discord';
import { startFakeSlack, type FakeSlack } from './test-support/fake-slack';
import { startFakeTelegram, type FakeTelegram } from './test-support/fake-telegram';
import { startLocalServer, type LocalServer, type ReceivedRequest } from './test-support/local-server';

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const CHAT = '-1001234567890';

const opened: SystemNotice = {
  type: 'notice',
  notice: {
    id: 'ntc_abc',
    kind: 'source_failing',
    state: 'open',
    source: '#btc',
    channel_id: null,
    // Text that every markup must escape: a Telegram tag, Slack's control characters, an ampersand.
    message: 'X answers 401 for <b>#btc</b> & its query: check the X credentials',
    opened_at: '2026-11-27T01:02:03.000Z',
    resolved_at: null,
  },
};
const resolved: SystemNotice = {
  type: 'notice',
  notice: { ...opened.notice, kind: 'channel_failing', source: null, channel_id: 'wh_slack', state: 'resolved', resolved_at: '2026-11-27T02:10:00.000Z', message: 'Slack takes messages again' },
};
const meta = { messageId: 'ntc_abc:open', timestamp: new Date('2026-11-27T01:02:04.000Z') };

describe('notice messages', () => {
  const sender = createSender({ allowPrivateNetworks: true, timeoutMs: 5000 });
  let discord: FakeDiscord;
  let slack: FakeSlack;
  let telegram: FakeTelegram;
  let receiver: LocalServer;
  const received: ReceivedRequest[] = [];
  const secret = generateSigningSecret();
  beforeAll(async () => {
    discord = await startFakeDiscord();
    slack = await startFakeSlack();
    telegram = await startFakeTelegram({ token: TOKEN, chats: [CHAT] });
    receiver = await startLocalServer((request) => {
      received.push(request);
      // Verified at the time the messages are signed for (meta), as a receiver verifies at the time it gets them.
      return verifyWebhookSignature(secret, request.headers, request.body, { now: meta.timestamp }).valid ? { status: 204 } : { status: 401, body: 'bad signature' };
    });
  });
  afterAll(async () => {
    sender.close();
    await Promise.all([discord.close(), slack.close(), telegram.close(), receiver.close()]);
  });

  it('Discord: an embed of its own, amber while open and green once resolved, never the channel template', async () => {
    const config = channel({ kind: 'discord', url: discord.webhookUrl, template: 'ALERT {text}' });
    expect((await deliver(opened, config, meta, sender)).outcome).toEqual({ outcome: 'delivered' });
    expect((await deliver(resolved, config, meta, sender)).outcome).toEqual({ outcome: 'delivered' });
    const [open, done] = discord.messages as { username: string; embeds: { title: string; description: string; color: number; timestamp: string }[]; content?: string }[];
    expect(open?.content).toBeUndefined();
    expect(open?.embeds[0]).toEqual({
      title: '⚠ Hashwatch notice: source failing',
      description: `**Source: #btc**\n\n${opened.notice.message}\n\n*Since 2026-11-27 01:02 UTC*`,
      color: 0xffad1f,
      timestamp: '2026-11-27T01:02:03.000Z',
    });
    expect(done?.embeds[0]).toMatchObject({ title: '✅ Resolved: channel failing', color: 0x17bf63, timestamp: '2026-11-27T02:10:00.000Z' });
    expect(done?.embeds[0]?.description).toContain('Channel: wh_slack');
    expect(done?.embeds[0]?.description).toContain('Opened 2026-11-27 01:02 UTC · resolved 2026-11-27 02:10 UTC');
  });

  it('Slack: header, subject and message in blocks, escaped, with the times as a context line', async () => {
    const config = channel({ kind: 'slack', url: slack.webhookUrl, template: 'ALERT {text}' });
    expect((await deliver(opened, config, meta, sender)).outcome).toEqual({ outcome: 'delivered' });
    const message = slack.messages.at(-1) as { text: string; blocks: unknown[] };
    expect(message.text).toBe('⚠ Hashwatch notice: source failing · Source: #btc');
    expect(message.blocks).toEqual([
      { type: 'context', elements: [{ type: 'mrkdwn', text: '*Hashwatch*' }] },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: '*⚠ Hashwatch notice: source failing*\nSource: #btc\n\nX answers 401 for &lt;b&gt;#btc&lt;/b&gt; &amp; its query: check the X credentials' },
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'Since 2026-11-27 01:02 UTC' }] },
    ]);
  });

  it('Telegram: HTML the Bot API parses, the message escaped so the reader sees it as written, no link preview', async () => {
    const config = channel({ kind: 'telegram', botToken: TOKEN, chatId: CHAT, telegramBaseUrl: telegram.origin, template: 'ALERT {text}' });
    const request = JSON.parse(telegramChannel.buildRequest(opened, config, meta).body) as Record<string, unknown>;
    expect(request).toMatchObject({ parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
    expect((await deliver(opened, config, meta, sender)).outcome).toEqual({ outcome: 'delivered' });
    expect(telegram.delivered.at(-1)).toEqual({
      chatId: CHAT,
      html: true,
      text: `⚠ Hashwatch notice: source failing\nSource: #btc\n\n${opened.notice.message}\n\nSince 2026-11-27 01:02 UTC`,
    });
    // The plain resend after a parse failure says the same.
    telegram.rejectHtml(true);
    try {
      expect((await deliver(resolved, config, meta, sender)).outcome).toEqual({ outcome: 'delivered' });
      expect(telegram.delivered.at(-1)).toMatchObject({ html: false, text: expect.stringContaining('✅ Resolved: channel failing\nChannel: wh_slack') });
    } finally {
      telegram.rejectHtml(false);
    }
  });

  it('json: {type: "notice", notice, text}, signed like alerts, webhook-id <notice id>:<state>', async () => {
    const config = channel({ kind: 'json', url: `${receiver.origin}/hooks`, signingSecret: secret, template: 'ALERT {text}' });
    expect((await deliver(opened, config, meta, sender)).outcome).toEqual({ outcome: 'delivered' });
    const request = received.at(-1) as ReceivedRequest;
    expect(request.headers['webhook-id']).toBe('ntc_abc:open');
    expect(request.headers['webhook-timestamp']).toBe(String(meta.timestamp.getTime() / 1000));
    expect(verifyWebhookSignature(secret, request.headers, request.body, { now: meta.timestamp }).valid).toBe(true);
    expect(JSON.parse(request.body)).toEqual({
      type: 'notice',
      notice: opened.notice,
      text: `⚠ Hashwatch notice: source failing\nSource: #btc\n\n${opened.notice.message}\n\nSince 2026-11-27 01:02 UTC`,
    });
    const other = jsonChannel.buildRequest(resolved, config, { ...meta, messageId: 'ntc_abc:resolved' });
    expect(JSON.parse(other.body)).toMatchObject({ type: 'notice', notice: { state: 'resolved', channel_id: 'wh_slack', resolved_at: '2026-11-27T02:10:00.000Z' } });
  });

  it('keeps a very long message within each platform limit, trimming only the message', () => {
    const long: SystemNotice = { type: 'notice', notice: { ...opened.notice, message: 'x'.repeat(10_000) } };
    const discordBody = JSON.parse(discordChannel.buildRequest(long, channel({ kind: 'discord', url: 'https://discord.com/api/webhooks/1/a' }), meta).body);
    expect(discordBody.embeds[0].description.length).toBeLessThanOrEqual(4096);
    expect(discordBody.embeds[0].description).toMatch(/…\n\n\*Since 2026-11-27 01:02 UTC\*$/);
    const slackBody = JSON.parse(slackChannel.buildRequest(long, channel({ kind: 'slack', url: 'https://hooks.slack.com/services/T/B/x' }), meta).body);
    expect(slackBody.blocks[1].text.text.length).toBeLessThanOrEqual(3000);
    const telegramBody = JSON.parse(telegramChannel.buildRequest(long, channel({ kind: 'telegram', botToken: TOKEN, chatId: CHAT }), meta).body);
    expect(telegramBody.text.length).toBeLessThanOrEqual(4096 + 40);
    expect(telegramBody.text).toMatch(/…\n\n<i>Since 2026-11-27 01:02 UTC<\/i>$/);
  });
});

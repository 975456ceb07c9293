import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@hashwatch/testing';
import { Suite } from './harness/suite';

const TOKEN = '424242:e2e-notice-token';
const CHAT_ID = '-1009876543210';

/**
 * The Bot API's sendMessage on 127.0.0.1: 403 "bot was kicked" while `blocked` (Telegram's answer to a bot removed
 * from a group), a sent message otherwise. Counts what it was asked.
 */
async function startTelegram(): Promise<{ origin: string; state: { blocked: boolean; requests: number; sent: number }; close(): Promise<void> }> {
  const state = { blocked: true, requests: 0, sent: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url !== `/bot${TOKEN}/sendMessage`) return reply(404, { ok: false, error_code: 404, description: 'Not Found' });
      state.requests += 1;
      if (state.blocked) return reply(403, { ok: false, error_code: 403, description: 'Forbidden: bot was kicked from the supergroup chat' });
      state.sent += 1;
      return reply(200, { ok: true, result: { message_id: state.sent, chat: { id: Number(CHAT_ID) } } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface NoticeRow {
  id: string;
  kind: string;
  channel_id: string | null;
  message: string;
  resolved_at: Date | null;
}

/**
 * CONTRACT 8, with the built apps as processes and two notifier replicas: a Telegram chat that removed the bot
 * (403) raises exactly one channel_failing notice at the first refused send, the bot is switched off instead of
 * retried, and once the bot is back and the channel turned on again the next alert resolves the notice, once.
 * Notices are read from the notices table: sending them is the notice messages' own work.
 */
describe('a Telegram bot removed from its chat', () => {
  let suite: Suite | undefined;
  let telegram: Awaited<ReturnType<typeof startTelegram>> | undefined;

  afterAll(async () => {
    await suite?.stop();
    await telegram?.close();
  });

  it('raises one channel_failing notice, stops sending, and resolves it once the bot is back', async () => {
    telegram = await startTelegram();
    const fake = telegram;
    suite = await Suite.start({ replicas: { notifier: 2 }, env: { TELEGRAM_API_BASE_URL: fake.origin } });
    const running = suite;
    await running.gateway.createTrack('e2enotice');
    await running.gateway.call('PUT', '/notifications', { webhooks: [], bot: { token: TOKEN, chat_id: CHAT_ID } });
    const before = (await running.xsim.requests('search_recent')).length;
    await waitFor(async () => (await running.xsim.requests('search_recent')).length >= before + 2, 30_000, 'the scanner to search the new track');

    const notices = async () =>
      (
        await running.pool.query<NoticeRow>(
          `SELECT id, kind, channel_id, message, resolved_at FROM notices WHERE user_id = $1 AND kind LIKE 'channel%' ORDER BY opened_at`,
          [running.accountId],
        )
      ).rows;
    const bot = async () => (await running.gateway.call('GET', '/notifications')) as { bot: { enabled: boolean; disabled_reason: string | null } | null };

    await running.xsim.injectPost({ author: 'e2enoticer', text: 'first #e2enotice', lang: 'en' });
    await waitFor(async () => (await notices()).length > 0, 60_000, 'the channel_failing notice');
    // More alerts while the bot is out: no more requests to Telegram, no second notice, on either replica.
    await running.xsim.injectPost({ author: 'e2enoticer', text: 'second #e2enotice', lang: 'en' });
    await waitFor(async () => (await running.feedItems()).length >= 2, 30_000, 'the second item stored');
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    const open = await notices();
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ kind: 'channel_failing', resolved_at: null });
    expect(open[0]?.channel_id).toMatch(/^bot_/);
    expect(open[0]?.message).toContain('re-add the bot to the chat');
    expect(open[0]?.message).not.toContain(TOKEN);
    expect(fake.state.requests).toBe(1);
    expect((await bot()).bot).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('403') as unknown });

    // The bot is added back and the channel saved with enabled: true: the next alert goes out and resolves it.
    fake.state.blocked = false;
    await running.gateway.call('PUT', '/notifications', { webhooks: [], bot: { chat_id: CHAT_ID, enabled: true } });
    await running.xsim.injectPost({ author: 'e2enoticer', text: 'third #e2enotice', lang: 'en' });
    await waitFor(() => fake.state.sent >= 1, 60_000, 'an alert sent to the chat again');
    await waitFor(async () => (await notices())[0]?.resolved_at !== null, 30_000, 'the notice resolved');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const after = await notices();
    expect(after).toHaveLength(1);
    expect(after[0]?.id).toBe(open[0]?.id);
    expect((await bot()).bot).toMatchObject({ enabled: true, disabled_reason: null });
  });
});

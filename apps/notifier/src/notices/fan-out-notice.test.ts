import { transaction } from '@hashwatch/db';
import { raiseNotice, resolveNotice } from '@hashwatch/notices';
import { useTestEnvironment } from '@hashwatch/testing';
import { addBot, addWebhook, newAccount } from '../test-support/notifier-fixture';
import { fanOutNotice, takesNotices } from './fan-out-notice';

describe('fanOutNotice', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;

  it('takes notices by platform default unless the channel says otherwise', () => {
    const webhook = (format: 'auto' | 'discord' | 'slack' | 'json', url: string, notices: boolean | null = null) => ({ kind: 'webhook' as const, format, url, notices });
    expect(takesNotices(webhook('auto', 'https://discord.com/api/webhooks/1/x'))).toBe(true);
    expect(takesNotices(webhook('auto', 'https://hooks.slack.com/services/T/B/x'))).toBe(true);
    expect(takesNotices(webhook('auto', 'https://example.com/hook'))).toBe(false);
    expect(takesNotices(webhook('json', 'https://example.com/hook', true))).toBe(true);
    expect(takesNotices(webhook('discord', 'http://127.0.0.1:9/hook', false))).toBe(false);
    expect(takesNotices({ kind: 'bot', format: 'auto', url: null, notices: null })).toBe(true);
  });

  it('creates one send per channel that takes notices, none to the channel the notice is about, once however often it runs', async () => {
    const userId = await newAccount(env.database);
    const discord = await addWebhook(pool(), userId, { url: 'http://127.0.0.1:9/discord', format: 'discord' });
    const failing = await addWebhook(pool(), userId, { url: 'http://127.0.0.1:9/slack', format: 'slack' });
    const json = await addWebhook(pool(), userId, { url: 'http://127.0.0.1:9/json', format: 'json' });
    const jsonOptIn = await addWebhook(pool(), userId, { url: 'http://127.0.0.1:9/json2', format: 'json' });
    await pool().query('UPDATE notification_channels SET notices = true WHERE id = $1', [jsonOptIn.id]);
    const paused = await addWebhook(pool(), userId, { url: 'http://127.0.0.1:9/paused', format: 'discord', enabled: false });
    const bot = await addBot(pool(), userId, { token: '123:abc', chatId: '42' });
    const other = await newAccount(env.database);
    await addWebhook(pool(), other, { url: 'http://127.0.0.1:9/other', format: 'discord' });

    const notice = await transaction(pool(), (client) => raiseNotice(client, { userId, kind: 'channel_failing', channelId: failing.id }, { message: 'Slack answers 500' }));
    const runs = await Promise.all([fanOutNotice(pool(), notice!.id, 'open'), fanOutNotice(pool(), notice!.id, 'open')]);
    const again = await fanOutNotice(pool(), notice!.id, 'open');

    const expected = [discord.id, jsonOptIn.id, bot].sort();
    expect(runs.flat().sort()).toEqual(expected);
    expect(again).toEqual([]);
    const { rows } = await pool().query<{ channel_id: string; message_id: string; status: string; user_id: string }>(
      `SELECT channel_id, message_id, status::text AS status, user_id FROM notice_deliveries WHERE notice_id = $1 ORDER BY channel_id`,
      [notice!.id],
    );
    expect(rows.map((row) => row.channel_id)).toEqual(expected);
    expect(rows.every((row) => row.message_id === `${notice!.id}:open` && row.status === 'pending' && row.user_id === userId)).toBe(true);
    expect(rows.map((row) => row.channel_id)).not.toContain(json.id);
    expect(rows.map((row) => row.channel_id)).not.toContain(paused.id);

    await transaction(pool(), (client) => resolveNotice(client, { userId, kind: 'channel_failing', channelId: failing.id }));
    expect((await fanOutNotice(pool(), notice!.id, 'resolved')).sort()).toEqual(expected);
  });

  it('creates the opening’s sends with a resolution whose opening was never fanned out', async () => {
    const userId = await newAccount(env.database);
    const discord = await addWebhook(pool(), userId, { url: 'http://127.0.0.1:9/discord', format: 'discord' });
    const condition = { userId, kind: 'source_silent' as const, source: '#quiet' };
    const notice = await transaction(pool(), (client) => raiseNotice(client, condition, { message: 'quiet' }));
    await transaction(pool(), (client) => resolveNotice(client, condition));
    expect(await fanOutNotice(pool(), notice!.id, 'resolved')).toEqual([discord.id]);
    expect(await fanOutNotice(pool(), notice!.id, 'open')).toEqual([]);
    const { rows } = await pool().query<{ state: string; message_id: string }>('SELECT state, message_id FROM notice_deliveries WHERE notice_id = $1 ORDER BY state', [notice!.id]);
    expect(rows).toEqual([
      { state: 'open', message_id: `${notice!.id}:open` },
      { state: 'resolved', message_id: `${notice!.id}:resolved` },
    ]);
  });

  it('sends nothing for a notice that is gone', async () => {
    expect(await fanOutNotice(pool(), 'ntc_gone', 'open')).toEqual([]);
  });
});

import { request, useGateway } from '../../test-support/gateway-harness';

type Auth = { Authorization: string };

const TOKEN = '123456789:AAHn7ZkP2yQ-exampleToken_wxyz';

describe('the notices switch of PUT /notifications', () => {
  const gw = useGateway();
  const put = (auth: Auth, body: unknown) => request(gw.app).put('/v1/notifications').set(auth).send(body as object);

  it('shows the notices switch as stored, else by platform; keeps it on a PUT without it; refuses a non-boolean', async () => {
    const { accountId, auth } = await gw.account('pro');
    const webhooks = [
      { url: 'https://discord.com/api/webhooks/1/abc' },
      { url: 'https://hooks.slack.com/services/T/B/x' },
      { url: 'https://example.com/hook' },
      { url: 'https://example.com/forced', format: 'discord' },
    ];
    const saved = (await put(auth, { webhooks, bot: { token: TOKEN, chat_id: '42' } }).expect(200)).body;
    expect(saved.webhooks.map((webhook: { notices: boolean }) => webhook.notices)).toEqual([true, true, false, true]);
    expect(saved.bot.notices).toBe(true);
    const stored = async () =>
      (await gw.env.database.db.pool.query<{ notices: boolean | null }>('SELECT notices FROM notification_channels WHERE user_id = $1 ORDER BY kind, position', [accountId])).rows.map(
        (row) => row.notices,
      );
    // Nothing stored yet: the notifier decides by the platform, as GET shows.
    expect(await stored()).toEqual([null, null, null, null, null]);

    const ids = saved.webhooks.map((webhook: { id: string }) => webhook.id) as string[];
    const switched = (
      await put(auth, {
        webhooks: [
          { id: ids[0], url: webhooks[0]!.url, notices: false },
          { id: ids[1], url: webhooks[1]!.url },
          { id: ids[2], url: webhooks[2]!.url, notices: true },
          { url: 'https://example.com/new', notices: true },
        ],
        bot: { chat_id: '42', notices: false },
      }).expect(200)
    ).body;
    expect(switched.webhooks.map((webhook: { notices: boolean }) => webhook.notices)).toEqual([false, true, true, true]);
    expect(switched.bot.notices).toBe(false);

    // Omitted: the saved choice stays, as the bot token does.
    const kept = (
      await put(auth, { webhooks: switched.webhooks.map((webhook: { id: string; url: string }) => ({ id: webhook.id, url: webhook.url })), bot: { chat_id: '42' } }).expect(200)
    ).body;
    expect(kept.webhooks.map((webhook: { notices: boolean }) => webhook.notices)).toEqual([false, true, true, true]);
    expect(kept.bot.notices).toBe(false);
    // A GET answer sent back as is changes nothing.
    expect((await put(auth, kept).expect(200)).body).toEqual(kept);

    const before = await stored();
    for (const bad of [{ webhooks: [{ id: ids[0], url: webhooks[0]!.url, notices: 'yes' }] }, { bot: { chat_id: '42', notices: 1 } }]) {
      const res = await put(auth, bad).expect(400);
      expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.stringMatching(/^(webhooks\.0|bot)\.notices: must be true or false/) } });
    }
    expect(await stored()).toEqual(before);
  });

  it('drops a saved choice when a PUT without notices moves a webhook between json and a chat platform, and keeps it within one kind', async () => {
    const { accountId, auth } = await gw.account('pro');
    const discordUrl = 'https://discord.com/api/webhooks/1/abc';
    const saved = (
      await put(auth, {
        webhooks: [
          { url: discordUrl, notices: true },
          { url: discordUrl, notices: false },
          { url: 'https://example.com/json', notices: true },
          { url: 'https://example.com/quiet', notices: false },
        ],
      }).expect(200)
    ).body;
    const ids = saved.webhooks.map((webhook: { id: string }) => webhook.id) as string[];
    const stored = async () =>
      (await gw.env.database.db.pool.query<{ notices: boolean | null }>('SELECT notices FROM notification_channels WHERE user_id = $1 ORDER BY position', [accountId])).rows.map(
        (row) => row.notices,
      );
    expect(await stored()).toEqual([true, false, true, false]);

    const moved = (
      await put(auth, {
        webhooks: [
          // Discord to a json receiver: the json default (off) applies, not the true saved for Discord.
          { id: ids[0], url: 'https://example.com/receiver' },
          // Discord to Slack, both chats: the choice stays.
          { id: ids[1], url: 'https://hooks.slack.com/services/T/B/x' },
          // json to Discord by format alone, same address: the Discord default (on).
          { id: ids[2], url: 'https://example.com/json', format: 'discord' },
          // json to another json address: the choice stays.
          { id: ids[3], url: 'https://example.org/other', format: 'json' },
        ],
      }).expect(200)
    ).body;
    expect(moved.webhooks.map((webhook: { notices: boolean }) => webhook.notices)).toEqual([false, false, true, false]);
    expect(await stored()).toEqual([null, false, null, false]);

    // Moved with an explicit switch: the switch sent is stored, whatever the platform.
    const pinned = (
      await put(auth, {
        webhooks: [
          { id: ids[0], url: discordUrl, notices: false },
          { id: ids[1], url: 'https://hooks.slack.com/services/T/B/x' },
          { id: ids[2], url: 'https://example.com/json', format: 'json', notices: true },
          { id: ids[3], url: 'https://example.org/other', format: 'json' },
        ],
      }).expect(200)
    ).body;
    expect(pinned.webhooks.map((webhook: { notices: boolean }) => webhook.notices)).toEqual([false, false, true, false]);
    expect(await stored()).toEqual([false, false, true, false]);
  });
});

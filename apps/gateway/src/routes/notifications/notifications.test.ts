import { createCipher, generateSecretsKey } from '@hashwatch/secrets';
import { request, useGateway } from '../../test-support/gateway-harness';

type Auth = { Authorization: string };

const TOKEN = '123456789:AAHn7ZkP2yQ-exampleToken_wxyz';
const OTHER_TOKEN = '987654321:BBHn7ZkP2yQ-anotherToken_abcd';
// Over the bounds: 2049-character URL, 81-character bot name, 2001-character template.
const LONG_URL = `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`;
const LONG_BOT_NAME = 'b'.repeat(81);
const LONG_TEMPLATE = 't'.repeat(2001);

function shortJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

describe('GET and PUT /notifications', () => {
  const gw = useGateway();

  const get = async (auth: Auth) => (await request(gw.app).get('/v1/notifications').set(auth).expect(200)).body;
  const put = (auth: Auth, body: unknown) => request(gw.app).put('/v1/notifications').set(auth).send(body as object);
  const rawChannels = async (accountId: string) =>
    (await gw.env.database.db.pool.query('SELECT * FROM notification_channels WHERE user_id = $1 ORDER BY position', [accountId])).rows;

  it('answers {"webhooks": [], "bot": null} before any PUT', async () => {
    const { auth } = await gw.account();
    expect(await get(auth)).toEqual({ webhooks: [], bot: null });
  });

  it('fills every omitted field with its default and answers the saved configuration, as GET does', async () => {
    const { auth } = await gw.account();
    const res = await put(auth, { webhooks: [{ url: 'https://example.com/hook' }], bot: { token: TOKEN, chat_id: '-1001234567890' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      webhooks: [
        {
          id: expect.stringMatching(/^wh_[A-Za-z0-9_-]+$/),
          url: 'https://example.com/hook',
          format: 'auto',
          bot_name: 'Hashwatch',
          hashtags: [],
          accounts: [],
          source_filter: 'all',
          engagement_alerts: false,
          template: '',
          enabled: true,
          signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]+$/),
          disabled_reason: null,
          // A json receiver (auto, not Discord or Slack) takes no notices unless asked.
          notices: false,
          // No ceiling: sent as fast as the receiver answers.
          max_per_second: null,
        },
      ],
      bot: {
        token_hint: '...wxyz',
        chat_id: '-1001234567890',
        hashtags: [],
        accounts: [],
        source_filter: 'all',
        engagement_alerts: false,
        template: '',
        enabled: true,
        disabled_reason: null,
        notices: true,
      },
    });
    expect(await get(auth)).toEqual(res.body);
  });

  it('saves every field as given, scopes lower-cased and deduplicated case-insensitively', async () => {
    const { auth } = await gw.account('pro');
    const webhook = {
      url: 'https://hooks.slack.com/services/T0/B0/xyz',
      format: 'slack',
      bot_name: 'Crypto desk',
      hashtags: ['BTC', 'btc', 'Eth', 'café'],
      accounts: ['Alice', 'ALICE', 'bob_1'],
      source_filter: 'hashtags',
      engagement_alerts: true,
      template: '{source}: {text} {url}',
      enabled: false,
    };
    const bot = { token: TOKEN, chat_id: '@hashwatch_news', hashtags: ['SOL'], accounts: [], source_filter: 'accounts', engagement_alerts: true, template: '{text}', enabled: true };
    const res = await put(auth, { webhooks: [webhook], bot });
    expect(res.status).toBe(200);
    expect(res.body.webhooks[0]).toMatchObject({ ...webhook, hashtags: ['btc', 'eth', 'café'], accounts: ['alice', 'bob_1'] });
    const { token: _token, ...botFields } = bot;
    expect(res.body.bot).toEqual({ ...botFields, hashtags: ['sol'], token_hint: '...wxyz', disabled_reason: null, notices: true });
  });

  it('keeps ids and signing secrets of listed webhooks, creates unlisted-id ones, deletes absent ones, in body order', async () => {
    const { auth } = await gw.account('pro');
    const first = (await put(auth, { webhooks: [{ url: 'https://a.example/1' }, { url: 'https://b.example/2' }] }).expect(200)).body;
    const [a, b] = first.webhooks;
    const second = await put(auth, {
      webhooks: [{ url: 'https://c.example/3' }, { id: b.id, url: 'https://b.example/changed', template: 'x' }],
    });
    expect(second.status).toBe(200);
    const [c, b2] = second.body.webhooks;
    expect(b2).toMatchObject({ id: b.id, signing_secret: b.signing_secret, url: 'https://b.example/changed', template: 'x' });
    expect(c.id).not.toBe(a.id);
    expect(c.id).not.toBe(b.id);
    expect(c.signing_secret).not.toBe(a.signing_secret);
    expect(c.signing_secret).not.toBe(b.signing_secret);
    expect(second.body.webhooks.map((w: { id: string }) => w.id)).not.toContain(a.id);
    expect(await get(auth)).toEqual(second.body);
  });

  it('accepts a GET answer sent back unchanged, and refuses a signing secret other than the saved one', async () => {
    const { auth } = await gw.account();
    const saved = (await put(auth, { webhooks: [{ url: 'https://example.com/hook' }], bot: { token: TOKEN, chat_id: '42' } }).expect(200)).body;
    const again = await put(auth, saved);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(saved);
    const forged = await put(auth, { webhooks: [{ ...saved.webhooks[0], signing_secret: 'whsec_bXlvd25zZWNyZXRteW93bnNlY3JldG15b3duc2VjcmV0' }] });
    expect(forged.status).toBe(400);
    expect(forged.body.error.message).toContain('webhooks.0.signing_secret');
    const onNew = await put(auth, { webhooks: [{ url: 'https://example.com/new', signing_secret: saved.webhooks[0].signing_secret }] });
    expect(onNew.status).toBe(400);
    expect(await get(auth)).toEqual(saved);
  });

  it('keeps the bot token write-only: a hint on read, kept by a PUT without token, replaced by a new one', async () => {
    const { accountId, auth } = await gw.account();
    const created = await put(auth, { bot: { token: TOKEN, chat_id: '-1001234567890' } }).expect(200);
    expect(JSON.stringify(created.body)).not.toContain(TOKEN);
    const kept = await put(auth, { bot: { chat_id: '-1009999999999', template: 'hi' } }).expect(200);
    expect(kept.body.bot).toMatchObject({ token_hint: '...wxyz', chat_id: '-1009999999999', template: 'hi' });
    const [row] = await rawChannels(accountId);
    expect(gw.deps.cipher.decrypt(row.bot_token_enc)).toBe(TOKEN);
    const replaced = await put(auth, { bot: { token: OTHER_TOKEN, chat_id: '-1009999999999' } }).expect(200);
    expect(replaced.body.bot.token_hint).toBe('...abcd');
    const [after] = await rawChannels(accountId);
    expect(gw.deps.cipher.decrypt(after.bot_token_enc)).toBe(OTHER_TOKEN);
    expect(JSON.stringify(await get(auth))).not.toContain(OTHER_TOKEN);
  });

  it('stores the bot token and the signing secret sealed: no column holds either in clear', async () => {
    const { accountId, auth } = await gw.account();
    const saved = (await put(auth, { webhooks: [{ url: 'https://example.com/hook' }], bot: { token: TOKEN, chat_id: '7' } }).expect(200)).body;
    const secret: string = saved.webhooks[0].signing_secret;
    const rows = await rawChannels(accountId);
    expect(rows).toHaveLength(2);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(TOKEN);
    expect(stored).not.toContain(TOKEN.split(':')[1]);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice('whsec_'.length));
    expect(stored).not.toContain('whsec_');
    const webhookRow = rows.find((row) => row.kind === 'webhook');
    expect(gw.deps.cipher.decrypt(webhookRow.signing_secret_enc)).toBe(secret);
  });

  it('answers 400 for a new bot without token, and saves nothing', async () => {
    const { auth } = await gw.account();
    const res = await put(auth, { webhooks: [{ url: 'https://example.com/hook' }], bot: { chat_id: '42' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.stringContaining('bot.token') });
    expect(await get(auth)).toEqual({ webhooks: [], bot: null });
  });

  it('removes the bot with bot null or an omitted bot, and all webhooks with an omitted webhooks', async () => {
    const { auth } = await gw.account();
    await put(auth, { webhooks: [{ url: 'https://example.com/hook' }], bot: { token: TOKEN, chat_id: '42' } }).expect(200);
    const withoutBot = await put(auth, { webhooks: [{ url: 'https://example.com/hook' }], bot: null }).expect(200);
    expect(withoutBot.body.bot).toBeNull();
    await put(auth, { bot: { token: TOKEN, chat_id: '42' } }).expect(200);
    expect((await get(auth)).webhooks).toEqual([]);
    expect((await put(auth, {}).expect(200)).body).toEqual({ webhooks: [], bot: null });
    // The token went with the bot: adding it back needs one again.
    expect((await put(auth, { bot: { chat_id: '42' } })).status).toBe(400);
  });

  it('answers 403 plan_limit_reached for 2 webhooks on Starter and saves nothing', async () => {
    const { auth } = await gw.account('starter');
    await put(auth, { webhooks: [{ url: 'https://example.com/one' }], bot: { token: TOKEN, chat_id: '42' } }).expect(200);
    const before = await get(auth);
    const res = await put(auth, { webhooks: [{ url: 'https://example.com/a' }, { url: 'https://example.com/b' }], bot: null });
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ code: 'plan_limit_reached', message: expect.stringContaining('1 webhook') });
    expect(await get(auth)).toEqual(before);
  });

  it('follows the account’s webhooks_limit snapshot', async () => {
    const { accountId, auth } = await gw.account('starter');
    await gw.env.database.db.prisma.user.update({ where: { id: accountId }, data: { webhooksLimit: 3 } });
    const three = [1, 2, 3].map((n) => ({ url: `https://example.com/${n}` }));
    await put(auth, { webhooks: three }).expect(200);
    expect((await put(auth, { webhooks: [...three, { url: 'https://example.com/4' }] })).status).toBe(403);
  });

  it('applies concurrent PUTs one after another: the result is exactly one of them', async () => {
    const { auth } = await gw.account('starter');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => put(auth, { webhooks: [{ url: `https://example.com/${i}` }] })),
    );
    expect(results.every((res) => res.status === 200)).toBe(true);
    const final = await get(auth);
    expect(final.webhooks).toHaveLength(1);
  });

  it.each(
    ([
      [{ webhooks: [{ url: 'http://example.com/hook' }] }, 'webhooks.0.url'],
      [{ webhooks: [{ url: 'ftp://example.com/hook' }] }, 'webhooks.0.url'],
      [{ webhooks: [{ url: '/relative/hook' }] }, 'webhooks.0.url'],
      [{ webhooks: [{ url: ' https://example.com/hook' }] }, 'webhooks.0.url'],
      [{ webhooks: [{ url: LONG_URL }] }, 'webhooks.0.url'],
      [{ webhooks: [{}] }, 'webhooks.0.url'],
      [{ webhooks: [{ url: 'https://example.com', format: 'teams' }] }, 'webhooks.0.format'],
      [{ webhooks: [{ url: 'https://example.com', bot_name: '' }] }, 'webhooks.0.bot_name'],
      [{ webhooks: [{ url: 'https://example.com', bot_name: LONG_BOT_NAME }] }, 'webhooks.0.bot_name'],
      [{ webhooks: [{ url: 'https://example.com', hashtags: ['#btc'] }] }, 'webhooks.0.hashtags.0'],
      [{ webhooks: [{ url: 'https://example.com', hashtags: ['two words'] }] }, 'webhooks.0.hashtags.0'],
      [{ webhooks: [{ url: 'https://example.com', accounts: ['ok', '@alice'] }] }, 'webhooks.0.accounts.1'],
      [{ webhooks: [{ url: 'https://example.com', accounts: ['a'.repeat(16)] }] }, 'webhooks.0.accounts.0'],
      [{ webhooks: [{ url: 'https://example.com', source_filter: 'both' }] }, 'webhooks.0.source_filter'],
      [{ webhooks: [{ url: 'https://example.com', engagement_alerts: 'yes' }] }, 'webhooks.0.engagement_alerts'],
      [{ webhooks: [{ url: 'https://example.com', template: LONG_TEMPLATE }] }, 'webhooks.0.template'],
      [{ webhooks: [{ url: 'https://example.com', enabled: 1 }] }, 'webhooks.0.enabled'],
      [{ webhooks: [{ url: 'https://example.com', colour: 'red' }] }, 'colour'],
      [{ webhooks: [{ id: 'trk_abc', url: 'https://example.com' }] }, 'webhooks.0.id'],
      [{ webhooks: [{ id: 'wh_doesnotexist', url: 'https://example.com' }] }, 'wh_doesnotexist'],
      [{ webhooks: { url: 'https://example.com' } }, 'webhooks'],
      [{ bot: { token: TOKEN } }, 'bot.chat_id'],
      [{ bot: { token: TOKEN, chat_id: -1001234567890 } }, 'bot.chat_id'],
      [{ bot: { token: TOKEN, chat_id: 'general' } }, 'bot.chat_id'],
      [{ bot: { token: 'not-a-token', chat_id: '42' } }, 'bot.token'],
      [{ bot: { token: '123:abc/../../x', chat_id: '42' } }, 'bot.token'],
      [{ bot: { token: TOKEN, chat_id: '42', url: 'https://example.com' } }, 'url'],
      [{ bot: { token: TOKEN, chat_id: '42', hashtags: ['$tsla'] } }, 'bot.hashtags.0'],
      [{ bot: 'yes' }, 'bot'],
      [{ webhooks: [], extra: true }, 'extra'],
      [[{ url: 'https://example.com' }], 'body'],
    ] as [unknown, string][]).map(([body, field]) => [shortJson(body), body, field] as const),
  )('answers 400 invalid_request naming the field for %s and changes nothing', async (_title, body, field) => {
    const { auth } = await gw.account();
    const saved = (await put(auth, { webhooks: [{ url: 'https://example.com/saved' }], bot: { token: TOKEN, chat_id: '42' } }).expect(200)).body;
    const res = await put(auth, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.stringContaining(field) } });
    expect(await get(auth)).toEqual(saved);
  });

  it('answers 400 for the same webhook id listed twice', async () => {
    const { accountId, auth } = await gw.account();
    await gw.env.database.db.prisma.user.update({ where: { id: accountId }, data: { webhooksLimit: 5 } });
    const saved = (await put(auth, { webhooks: [{ url: 'https://example.com/saved' }] }).expect(200)).body;
    const id = saved.webhooks[0].id;
    const res = await put(auth, { webhooks: [{ id, url: 'https://example.com/a' }, { id, url: 'https://example.com/b' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('webhooks.1.id');
    expect(await get(auth)).toEqual(saved);
  });

  it("answers 400 for another account's webhook id, never touches or reveals it", async () => {
    const owner = await gw.account();
    const other = await gw.account();
    const theirs = (await put(owner.auth, { webhooks: [{ url: 'https://secret.example/private-hook' }] }).expect(200)).body;
    const id = theirs.webhooks[0].id;
    const res = await put(other.auth, { webhooks: [{ id, url: 'https://attacker.example/' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(id);
    expect(res.body.error.message).not.toContain('secret.example');
    expect(await get(other.auth)).toEqual({ webhooks: [], bot: null });
    expect(await get(owner.auth)).toEqual(theirs);
    // A replacement by the other account never deletes the owner's channels either.
    await put(other.auth, { webhooks: [] }).expect(200);
    expect(await get(owner.auth)).toEqual(theirs);
  });

  it('shows why the platform stopped a channel, keeps it on enabled false, and clears it on enabled true', async () => {
    const { accountId, auth } = await gw.account();
    const saved = (await put(auth, { webhooks: [{ url: 'https://discord.com/api/webhooks/1/abc' }], bot: { token: TOKEN, chat_id: '42' } }).expect(200)).body;
    await gw.env.database.db.pool.query(
      `UPDATE notification_channels SET enabled = false, disabled_reason = 'Discord webhook not found (deleted)' WHERE user_id = $1`,
      [accountId],
    );
    const disabled = await get(auth);
    expect(disabled.webhooks[0]).toMatchObject({ enabled: false, disabled_reason: 'Discord webhook not found (deleted)' });
    expect(disabled.bot).toMatchObject({ enabled: false, disabled_reason: 'Discord webhook not found (deleted)' });
    const stillOff = await put(auth, disabled).expect(200);
    expect(stillOff.body).toEqual(disabled);
    const id = saved.webhooks[0].id;
    const on = await put(auth, { webhooks: [{ id, url: 'https://discord.com/api/webhooks/1/new', enabled: true }], bot: { chat_id: '42' } }).expect(200);
    expect(on.body.webhooks[0]).toMatchObject({ id, enabled: true, disabled_reason: null });
    expect(on.body.bot).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it('starts a channel turned back on (or pointed elsewhere) on a fresh failure clock, and leaves a healthy save alone', async () => {
    const { accountId, auth } = await gw.account();
    await gw.env.database.db.pool.query('UPDATE users SET webhooks_limit = 5 WHERE id = $1', [accountId]);
    const saved = (await put(auth, { webhooks: [{ url: 'https://hooks.example/a' }, { url: 'https://hooks.example/b' }], bot: { token: TOKEN, chat_id: '42' } }).expect(200)).body;
    const [a, b] = saved.webhooks.map((webhook: { id: string }) => webhook.id);
    const failing = async () =>
      (await gw.env.database.db.pool.query<{ id: string; failing: boolean; noticed: boolean }>(
        'SELECT id, failing_since IS NOT NULL AS failing, failure_noticed AS noticed FROM notification_channels WHERE user_id = $1 ORDER BY kind, id',
        [accountId],
      )).rows;
    // The notifier switched the bot and webhook a off after failing for 24 h; webhook b is failing, still on.
    await gw.env.database.db.pool.query(
      `UPDATE notification_channels SET failing_since = now() - interval '25 hours', failure_noticed = true,
              enabled = (id = $2), disabled_reason = CASE WHEN id = $2 THEN NULL ELSE 'failed every send for 24 h' END
        WHERE user_id = $1`,
      [accountId, b],
    );
    await put(auth, {
      webhooks: [{ id: a, url: 'https://hooks.example/a', enabled: true }, { id: b, url: 'https://hooks.example/b' }],
      bot: { chat_id: '42', enabled: true },
    }).expect(200);
    const after = new Map((await failing()).map((row) => [row.id, row]));
    // Turned back on: a fresh clock; the open notices stay noticed until a send succeeds.
    expect(after.get(a)).toMatchObject({ failing: false, noticed: true });
    expect([...after.values()].find((row) => row.id.startsWith('bot_'))).toMatchObject({ failing: false, noticed: true });
    // Saved unchanged while on: still failing since the same time.
    expect(after.get(b)).toMatchObject({ failing: true, noticed: true });
    await put(auth, { webhooks: [{ id: a, url: 'https://hooks.example/a' }, { id: b, url: 'https://hooks.example/b2' }], bot: { chat_id: '42' } }).expect(200);
    expect((await failing()).find((row) => row.id === b)).toMatchObject({ failing: false });
  });

  it('documents the four endpoints and the configuration schemas in the OpenAPI document', async () => {
    const doc = (await request(gw.app).get('/v1/openapi.json').expect(200)).body;
    expect(Object.keys(doc.paths['/v1/notifications']).sort()).toEqual(['get', 'put']);
    expect(doc.paths['/v1/notifications/test'].post.responses).toHaveProperty('502');
    expect(doc.paths['/v1/notifications/test'].post.responses).toHaveProperty('429');
    expect(doc.paths['/v1/notifications'].put.responses).toHaveProperty('403');
    expect(doc.paths['/v1/notifications/deliveries'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['channel', 'cursor', 'feed_item', 'limit', 'status']);
    expect(doc.paths['/v1/notifications/deliveries/{id}/retry'].post.responses).toHaveProperty('404');
    expect(doc.components.schemas.NotificationConfig.properties).toHaveProperty('webhooks');
    expect(doc.components.schemas.WebhookChannel.required).toContain('disabled_reason');
    expect(doc.components.schemas.WebhookChannel.required).toContain('notices');
    expect(doc.components.schemas.BotChannel.required).toContain('notices');
    expect(doc.components.schemas.WebhookChannelInput.properties.notices.type).toBe('boolean');
  });
});

describe('notifications whose stored secret the server cannot open', () => {
  const gw = useGateway();
  const foreign = () => createCipher(generateSecretsKey());

  async function accountWithTwoWebhooks() {
    const account = await gw.account('pro');
    const saved = await request(gw.app)
      .put('/v1/notifications')
      .set(account.auth)
      .send({ webhooks: [{ url: 'https://example.com/one', format: 'json' }, { url: 'https://example.com/two', format: 'json' }], bot: { token: TOKEN, chat_id: '-1001234567890' } })
      .expect(200);
    const [broken, intact] = saved.body.webhooks as { id: string; signing_secret: string }[];
    await gw.env.database.db.pool.query('UPDATE notification_channels SET signing_secret_enc = $2 WHERE id = $1', [broken!.id, foreign().encrypt('whsec_lost')]);
    await gw.env.database.db.pool.query(`UPDATE notification_channels SET bot_token_enc = $2 WHERE user_id = $1 AND kind = 'bot'`, [account.accountId, foreign().encrypt(TOKEN)]);
    return { ...account, broken: broken!, intact: intact! };
  }

  it('GET answers 200 with that webhook\'s signing_secret null and every other channel as saved', async () => {
    const { auth, broken, intact } = await accountWithTwoWebhooks();
    const res = await request(gw.app).get('/v1/notifications').set(auth);
    expect(res.status).toBe(200);
    expect(res.body.webhooks).toEqual([
      expect.objectContaining({ id: broken.id, url: 'https://example.com/one', signing_secret: null }),
      expect.objectContaining({ id: intact.id, signing_secret: intact.signing_secret }),
    ]);
    expect(res.body.bot).toMatchObject({ token_hint: '...wxyz' });
  });

  it('PUT accepts the GET answer sent back as is, and refuses a guessed secret with 400', async () => {
    const { auth, broken } = await accountWithTwoWebhooks();
    const body = (await request(gw.app).get('/v1/notifications').set(auth).expect(200)).body;
    const res = await request(gw.app).put('/v1/notifications').set(auth).send(body);
    expect([res.status, res.body]).toEqual([200, body]);
    const guessed = { ...body, webhooks: [{ ...body.webhooks[0], signing_secret: 'whsec_lost' }, body.webhooks[1]] };
    const refused = await request(gw.app).put('/v1/notifications').set(auth).send(guessed);
    expect([refused.status, refused.body.error?.code, refused.body.error?.message]).toEqual([400, 'invalid_request', expect.stringMatching(/^webhooks\.0\.signing_secret: read-only/)]);
    expect((await request(gw.app).get('/v1/notifications').set(auth).expect(200)).body.webhooks[0]).toMatchObject({ id: broken.id, signing_secret: null });
  });

  it('POST /notifications/test answers 502 delivery_failed naming SECRETS_KEY, for a webhook and for the bot', async () => {
    const { auth, broken } = await accountWithTwoWebhooks();
    const webhook = await request(gw.app).post('/v1/notifications/test').set(auth).send({ channel: 'webhook', id: broken.id });
    expect([webhook.status, webhook.body.error?.code]).toEqual([502, 'delivery_failed']);
    expect(webhook.body.error.message).toMatch(/signing secret cannot be opened with this server's SECRETS_KEY; save the webhook again without its id/);
    const bot = await request(gw.app).post('/v1/notifications/test').set(auth).send({ channel: 'bot' });
    expect([bot.status, bot.body.error?.code]).toEqual([502, 'delivery_failed']);
    expect(bot.body.error.message).toMatch(/bot token cannot be opened with this server's SECRETS_KEY/);
  });
});

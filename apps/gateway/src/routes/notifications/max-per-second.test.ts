import { request, useGateway } from '../../test-support/gateway-harness';

type Auth = { Authorization: string };

const TOKEN = '123456789:AAHn7ZkP2yQ-exampleToken_wxyz';

// CONTRACT 9: a json webhook's own ceiling on messages a second, `max_per_second` on PUT /notifications.
describe('PUT /notifications: max_per_second', () => {
  const gw = useGateway();
  const get = async (auth: Auth) => (await request(gw.app).get('/v1/notifications').set(auth).expect(200)).body;
  const put = (auth: Auth, body: unknown) => request(gw.app).put('/v1/notifications').set(auth).send(body as object);
  const rawChannels = async (accountId: string) =>
    (await gw.env.database.db.pool.query('SELECT * FROM notification_channels WHERE user_id = $1 ORDER BY position', [accountId])).rows;

  it('saves a json webhook’s max_per_second, shows it, and replaces it with what the next PUT sends (null: none)', async () => {
    const { accountId, auth } = await gw.account('pro');
    const first = (await put(auth, { webhooks: [{ url: 'https://example.com/hook', max_per_second: 50 }, { url: 'https://example.com/other', format: 'json' }] }).expect(200)).body;
    expect(first.webhooks.map((webhook: { max_per_second: number | null }) => webhook.max_per_second)).toEqual([50, null]);
    expect((await rawChannels(accountId)).map((row) => row.max_per_second)).toEqual([50, null]);
    // A GET answer sent back keeps it; a PUT without it (or with null) takes the ceiling off.
    expect((await put(auth, first).expect(200)).body).toEqual(first);
    const [hook] = first.webhooks as { id: string }[];
    const cleared = (await put(auth, { webhooks: [{ id: hook!.id, url: 'https://example.com/hook' }] }).expect(200)).body;
    expect(cleared.webhooks).toEqual([expect.objectContaining({ id: hook!.id, max_per_second: null })]);
    // Discord and Slack webhooks answer null: they are sent within their platforms' limits.
    const discord = (await put(auth, { webhooks: [{ url: 'https://discord.com/api/webhooks/1/a' }] }).expect(200)).body;
    expect(discord.webhooks[0].max_per_second).toBeNull();
  });

  it.each([
      [{ webhooks: [{ url: 'https://example.com', max_per_second: 0 }] }, 'webhooks.0.max_per_second'],
      [{ webhooks: [{ url: 'https://example.com', max_per_second: 2.5 }] }, 'webhooks.0.max_per_second'],
      [{ webhooks: [{ url: 'https://example.com', max_per_second: '10' }] }, 'webhooks.0.max_per_second'],
      [{ webhooks: [{ url: 'https://example.com', max_per_second: 100_001 }] }, 'webhooks.0.max_per_second'],
      [{ webhooks: [{ url: 'https://example.com', format: 'slack', max_per_second: 5 }] }, 'webhooks.0.max_per_second'],
      [{ webhooks: [{ url: 'https://discord.com/api/webhooks/1/a', max_per_second: 5 }] }, 'webhooks.0.max_per_second'],
      [{ bot: { token: TOKEN, chat_id: '42', max_per_second: 5 } }, 'max_per_second'],
  ] as [unknown, string][])('answers 400 naming the field for %j and changes nothing', async (body, field) => {
    const { auth } = await gw.account('pro');
    const saved = (await put(auth, { webhooks: [{ url: 'https://example.com/saved', max_per_second: 7 }], bot: null }).expect(200)).body;
    const res = await put(auth, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.stringContaining(field) } });
    expect(await get(auth)).toEqual(saved);
  });
});

import type { Express } from 'express';
import { createSender, verifyWebhookSignature, type Sender } from '@hashwatch/channels';
import { startLocalServer, type LocalServer } from '@hashwatch/channels/testing';
import { createApp } from '../../app';
import { request, useGateway } from '../../test-support/gateway-harness';

type Auth = { Authorization: string };

const TOKEN = '123456789:AAHn7ZkP2yQ-exampleToken_wxyz';
const CHAT = '-1001234567890';
const BLOCKED_CHAT = '-1009999999999';

/** A scripted answer; `body` is sent as JSON unless it is a string. */
interface Answer {
  status: number;
  body: unknown;
}

/**
 * One real HTTP server on 127.0.0.1 playing three outside worlds by path: a json receiver (`/json/...`),
 * a Discord-like webhook (`/api/webhooks/...`) and the Telegram Bot API (`/bot<token>/sendMessage`).
 */
function reply(path: string, body: string): Answer {
  if (path === '/json/ok') return { status: 200, body: { received: true } };
  if (path === '/json/broken') return { status: 500, body: 'receiver exploded' };
  if (path.startsWith('/api/webhooks/')) {
    if (!path.endsWith('?wait=true')) return { status: 400, body: { message: 'expected wait=true', code: 50035 } };
    return { status: 200, body: { id: '1234', type: 0 } };
  }
  const telegram = /^\/bot([^/]+)\/sendMessage$/.exec(path);
  if (telegram) {
    if (telegram[1] !== TOKEN) return { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } };
    const { chat_id: chatId } = JSON.parse(body) as { chat_id: string };
    if (chatId === BLOCKED_CHAT) return { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } };
    return { status: 200, body: { ok: true, result: { message_id: 7 } } };
  }
  return { status: 404, body: 'no such path' };
}

function startReceiver(): Promise<LocalServer> {
  return startLocalServer((request) => {
    const answer = reply(request.path, request.body);
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    return { status: answer.status, headers: { 'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json' }, body: text };
  });
}

describe('POST /notifications/test', () => {
  const gw = useGateway();
  let receiver: LocalServer;
  let sender: Sender;
  let app: Express;

  beforeAll(async () => {
    receiver = await startReceiver();
    sender = createSender({ allowPrivateNetworks: true, timeoutMs: 5000 });
    // The gateway as a development deployment runs it: private networks allowed, Telegram at the local receiver.
    app = createApp({ ...gw.deps, notifications: { sender, telegramBaseUrl: receiver.origin, allowPrivateNetworks: true } });
  });

  afterAll(async () => {
    sender.close();
    await receiver.close();
  });

  const configure = async (auth: Auth, body: object) => (await request(app).put('/v1/notifications').set(auth).send(body).expect(200)).body;
  const test = (auth: Auth, body: object) => request(app).post('/v1/notifications/test').set(auth).send(body);
  const receivedSince = (count: number) => receiver.received.slice(count);

  it('delivers a signed json test alert that verifies with the signing secret GET /notifications shows', async () => {
    const { auth } = await gw.account();
    const saved = await configure(auth, { webhooks: [{ url: `${receiver.origin}/json/ok` }] });
    const before = receiver.received.length;
    const res = await test(auth, { channel: 'webhook', id: saved.webhooks[0].id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ delivered: true, status: 200 });

    const [delivery] = receivedSince(before);
    expect(delivery).toBeDefined();
    const { signing_secret: secret } = (await request(app).get('/v1/notifications').set(auth).expect(200)).body.webhooks[0];
    const verified = verifyWebhookSignature(secret, delivery!.headers, delivery!.body);
    expect(verified).toEqual({ valid: true, id: expect.stringMatching(/^msg_/), timestamp: expect.any(Number) });
    expect(verifyWebhookSignature(secret, delivery!.headers, `${delivery!.body} `).valid).toBe(false);
    const payload = JSON.parse(delivery!.body);
    expect(payload).toMatchObject({ type: 'test', post: { hashtag: 'hashwatch' } });

    // Every test is a new message: a fresh webhook-id.
    await test(auth, { channel: 'webhook', id: saved.webhooks[0].id }).expect(200);
    const [again] = receivedSince(before + 1);
    expect(again!.headers['webhook-id']).not.toBe(delivery!.headers['webhook-id']);
  });

  it('renders the channel’s custom template in the json payload', async () => {
    const { auth } = await gw.account();
    const saved = await configure(auth, { webhooks: [{ url: `${receiver.origin}/json/ok`, template: 'New on {source} by {author}: {url}' }] });
    const before = receiver.received.length;
    await test(auth, { channel: 'webhook', id: saved.webhooks[0].id }).expect(200);
    const payload = JSON.parse(receivedSince(before)[0]!.body);
    expect(payload.text).toBe('New on #hashwatch by @hashwatch: https://x.com/search?q=%23hashwatch');
  });

  it('delivers to a Discord-like webhook with the bot name, waiting for Discord to save the message', async () => {
    const { auth } = await gw.account();
    const saved = await configure(auth, { webhooks: [{ url: `${receiver.origin}/api/webhooks/42/secret-token`, format: 'discord', bot_name: 'Crypto desk' }] });
    const before = receiver.received.length;
    const res = await test(auth, { channel: 'webhook', id: saved.webhooks[0].id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ delivered: true, status: 200 });
    const [delivery] = receivedSince(before);
    expect(delivery!.path).toBe('/api/webhooks/42/secret-token?wait=true');
    const payload = JSON.parse(delivery!.body);
    expect(payload.username).toBe('Crypto desk');
    expect(payload.embeds).toHaveLength(1);
    expect(delivery!.headers['webhook-signature']).toBeUndefined();
  });

  it('delivers to the Telegram-like Bot API at TELEGRAM_API_BASE_URL with the sealed token and the chat id as given', async () => {
    const { auth } = await gw.account();
    await configure(auth, { bot: { token: TOKEN, chat_id: CHAT } });
    const before = receiver.received.length;
    const res = await test(auth, { channel: 'bot' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ delivered: true, status: 200 });
    const [delivery] = receivedSince(before);
    expect(delivery!.path).toBe(`/bot${TOKEN}/sendMessage`);
    const payload = JSON.parse(delivery!.body);
    expect(payload).toMatchObject({ chat_id: CHAT, parse_mode: 'HTML' });
    expect(payload.text).toContain('#hashwatch');
  });

  it('answers 502 delivery_failed naming the missing signing secret of a json webhook, and sends nothing unsigned', async () => {
    const { auth } = await gw.account();
    const saved = await configure(auth, { webhooks: [{ url: `${receiver.origin}/json/ok` }] });
    await gw.env.database.db.pool.query('UPDATE notification_channels SET signing_secret_enc = NULL WHERE id = $1', [saved.webhooks[0].id]);
    const before = receiver.received.length;
    const res = await test(auth, { channel: 'webhook', id: saved.webhooks[0].id });
    expect([res.status, res.body.error?.code]).toEqual([502, 'delivery_failed']);
    expect(res.body.error.message).toBe(
      'the test alert was not sent: no signing secret is stored for this channel; save the webhook again without its id to get a new secret',
    );
    expect(receivedSince(before)).toEqual([]);
  });

  it('delivers to a Discord webhook whose stored signing secret is missing: Discord messages are not signed', async () => {
    const { auth } = await gw.account();
    const saved = await configure(auth, { webhooks: [{ url: `${receiver.origin}/api/webhooks/42/secret-token`, format: 'discord' }] });
    await gw.env.database.db.pool.query('UPDATE notification_channels SET signing_secret_enc = NULL WHERE id = $1', [saved.webhooks[0].id]);
    const res = await test(auth, { channel: 'webhook', id: saved.webhooks[0].id });
    expect([res.status, res.body]).toEqual([200, { delivered: true, status: 200 }]);
  });

  it('answers 502 delivery_failed with the receiver’s answer when it fails with 500', async () => {
    const { auth } = await gw.account();
    const saved = await configure(auth, { webhooks: [{ url: `${receiver.origin}/json/broken` }] });
    const res = await test(auth, { channel: 'webhook', id: saved.webhooks[0].id });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('delivery_failed');
    expect(res.body.error.message).toContain('500');
    expect(res.body.error.message).toContain('receiver exploded');
  });

  it('answers 502 with Telegram’s description and never the token, and leaves the channel as it was', async () => {
    const { auth } = await gw.account();
    const saved = await configure(auth, { bot: { token: TOKEN, chat_id: BLOCKED_CHAT } });
    const res = await test(auth, { channel: 'bot' });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('delivery_failed');
    expect(res.body.error.message).toContain('bot was blocked by the user');
    expect(JSON.stringify(res.body)).not.toContain(TOKEN.split(':')[1]);
    expect(JSON.stringify(gw.logs)).not.toContain(TOKEN.split(':')[1]);
    expect((await request(app).get('/v1/notifications').set(auth).expect(200)).body).toEqual(saved);
  });

  it('answers 502 when nothing listens at the address', async () => {
    const { auth } = await gw.account();
    const saved = await configure(auth, { webhooks: [{ url: 'http://127.0.0.1:1/json/ok' }] });
    const res = await test(auth, { channel: 'webhook', id: saved.webhooks[0].id });
    expect(res.status).toBe(502);
    expect(res.body.error.message).toContain('refused the connection');
  });

  it('refuses loopback targets when WEBHOOK_ALLOW_PRIVATE_NETWORKS is off', async () => {
    const { auth } = await gw.account();
    // gw.app runs with the production defaults: public https: targets only.
    const saved = (await request(gw.app).put('/v1/notifications').set(auth).send({ webhooks: [{ url: `https://127.0.0.1:${new URL(receiver.origin).port}/json/ok` }] }).expect(200)).body;
    const before = receiver.received.length;
    const res = await request(gw.app).post('/v1/notifications/test').set(auth).send({ channel: 'webhook', id: saved.webhooks[0].id });
    expect(res.status).toBe(502);
    // Refused without naming what the host resolved to.
    expect(res.body.error.message).toMatch(/the destination is not allowed/);
    expect(res.body.error.message).not.toMatch(/127\.0\.0\.1|loopback/);
    expect(receiver.received.length).toBe(before);
  });

  it("answers 404 for an unknown webhook, another account's webhook, or a missing bot, and sends nothing", async () => {
    const owner = await gw.account();
    const other = await gw.account();
    const theirs = await configure(owner.auth, { webhooks: [{ url: `${receiver.origin}/json/ok` }] });
    const before = receiver.received.length;
    for (const body of [{ channel: 'webhook', id: 'wh_unknown' }, { channel: 'webhook', id: theirs.webhooks[0].id }, { channel: 'bot' }]) {
      const res = await test(other.auth, body);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect(res.body.error.message).not.toContain(receiver.origin);
    }
    expect(receiver.received.length).toBe(before);
  });

  it.each([
    [{ channel: 'email' }, 'channel'],
    [{}, 'channel'],
    [{ channel: 'webhook' }, 'id'],
    [{ channel: 'webhook', id: 'trk_1' }, 'id'],
    [{ channel: 'bot', id: 'wh_1' }, 'id'],
  ])('answers 400 invalid_request for %j', async (body, field) => {
    const { auth } = await gw.account();
    const res = await test(auth, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.stringContaining(field) } });
  });

  it('answers 429 rate_limited to the 11th test in a minute, counting every request whatever its outcome', async () => {
    const { auth } = await gw.account('business');
    await configure(auth, { webhooks: [{ url: `${receiver.origin}/json/ok` }] });
    for (let i = 0; i < 10; i += 1) expect((await test(auth, { channel: 'bot' })).status).toBe(404);
    const before = receiver.received.length;
    const limited = await test(auth, { channel: 'bot' });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.body.error.message).toContain('10 per minute');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-limit']).toBe('10');
    const { webhooks } = (await request(app).get('/v1/notifications').set(auth).expect(200)).body;
    expect((await test(auth, { channel: 'webhook', id: webhooks[0].id })).status).toBe(429);
    expect(receiver.received.length).toBe(before);
    // Another account has its own allowance.
    const other = await gw.account();
    expect((await test(other.auth, { channel: 'bot' })).status).toBe(404);
  });
});

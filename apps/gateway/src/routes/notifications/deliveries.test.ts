import { assertJobId, parseJobPayload } from '@hashwatch/queues';
import { randomToken } from '@hashwatch/secrets';
import { request, useGateway } from '../../test-support/gateway-harness';
import { followCursor, type CursorPage } from '../../test-support/paging';

type Auth = { Authorization: string };

const TOKEN = '123456789:AAHn7ZkP2yQ-exampleToken_wxyz';

interface DeliverySeed {
  channelId: string;
  createdAt: string;
  status?: 'pending' | 'delivered' | 'failed' | 'skipped';
  /** An item already inserted (another channel's delivery of it); default a new one. */
  feedItemId?: string;
  late?: boolean;
  detectedAt?: string;
  deliveredAt?: string | null;
  attempts?: number;
  lastError?: string | null;
  lastStatus?: number | null;
  nextAttemptAt?: string | null;
}

describe('GET /notifications/deliveries and POST /notifications/deliveries/{id}/retry', () => {
  const gw = useGateway();
  const db = () => gw.env.database.db.pool;

  /** An account with two webhooks and the bot; the bot's row id is internal, so it is read from the table. */
  async function setup() {
    const account = await gw.account('pro');
    const config = (
      await request(gw.app)
        .put('/v1/notifications')
        .set(account.auth)
        .send({ webhooks: [{ url: 'https://example.com/a' }, { url: 'https://example.com/b' }], bot: { token: TOKEN, chat_id: '42' } })
        .expect(200)
    ).body;
    const { rows } = await db().query<{ id: string }>(`SELECT id FROM notification_channels WHERE user_id = $1 AND kind = 'bot'`, [account.accountId]);
    return { ...account, wh1: config.webhooks[0].id as string, wh2: config.webhooks[1].id as string, botRow: rows[0]!.id };
  }

  /** A feed item and its delivery row, inserted as the scanner and the notifier would. */
  async function insertDelivery(userId: string, seed: DeliverySeed): Promise<string> {
    const feedItemId = seed.feedItemId ?? `post_${randomToken(12)}`;
    if (!seed.feedItemId) {
      await db().query(
        `INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, sources, x_post_id, author, author_name, text, url, detected_at)
         VALUES ($1, $2, $3, 'hashtag', 'btc', ARRAY['#btc'], $4, '@alice', 'Alice', 'gm', 'https://x.com/alice/status/1', $5)`,
        [feedItemId, userId, `x:${feedItemId}`, feedItemId, seed.detectedAt ?? seed.createdAt],
      );
    }
    const id = `dlv_${randomToken(12)}`;
    await db().query(
      `INSERT INTO deliveries (id, user_id, channel_id, feed_item_id, message_id, status, attempts, last_error, last_status,
                               next_attempt_at, delivered_at, created_at, updated_at, late)
       VALUES ($1, $2, $3, $4, $5, $6::delivery_status, $7, $8, $9, $10, $11, $12, $12, $13)`,
      [
        id, userId, seed.channelId, feedItemId, `msg_${id}`, seed.status ?? 'pending', seed.attempts ?? 0, seed.lastError ?? null,
        seed.lastStatus ?? null, seed.nextAttemptAt ?? null, seed.deliveredAt ?? null, seed.createdAt, seed.late ?? false,
      ],
    );
    return id;
  }

  const list = (auth: Auth, query: Record<string, string | number> = {}) => request(gw.app).get('/v1/notifications/deliveries').set(auth).query(query);
  const retry = (auth: Auth, id: string) => request(gw.app).post(`/v1/notifications/deliveries/${id}/retry`).set(auth);
  const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);
  const outboxRows = async (deliveryId: string) =>
    (await db().query(`SELECT queue, name, job_id, payload FROM outbox_jobs WHERE payload->>'deliveryId' = $1 ORDER BY id`, [deliveryId])).rows;

  const everyPage = async (auth: Auth, query: Record<string, string | number>): Promise<string[]> =>
    (await followCursor(async (pageQuery) => (await list(auth, pageQuery).expect(200)).body as CursorPage, query)).ids;

  it('answers an empty log before any alert', async () => {
    const { auth } = await gw.account();
    expect((await list(auth).expect(200)).body).toEqual({ data: [], next_cursor: null });
  });

  it('lists deliveries newest first with every field, latency from detection, and `bot` for the bot channel', async () => {
    const { accountId, auth, wh1, botRow } = await setup();
    const delivered = await insertDelivery(accountId, {
      channelId: wh1,
      createdAt: '2026-03-01T10:00:00.000Z',
      detectedAt: '2026-03-01T09:59:58.500Z',
      deliveredAt: '2026-03-01T10:00:01.250Z',
      status: 'delivered',
      attempts: 1,
      lastStatus: 204,
    });
    const failed = await insertDelivery(accountId, {
      channelId: botRow,
      createdAt: '2026-03-01T10:00:01.000Z',
      status: 'failed',
      attempts: 15,
      lastError: 'Telegram answered 403: Forbidden: bot was blocked by the user',
      lastStatus: 403,
    });
    const pending = await insertDelivery(accountId, { channelId: wh1, createdAt: '2026-03-01T10:00:02.000Z', attempts: 2, lastError: 'the receiver answered 503', lastStatus: 503, nextAttemptAt: '2026-03-01T10:05:00.000Z' });

    const res = await list(auth).expect(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.data).toEqual([
      {
        id: pending, channel_id: wh1, feed_item_id: expect.stringMatching(/^post_/), status: 'pending', attempts: 2,
        last_error: 'the receiver answered 503', last_status: 503, late: false, created_at: '2026-03-01T10:00:02.000Z', delivered_at: null,
        latency_ms: null, next_attempt_at: '2026-03-01T10:05:00.000Z',
      },
      {
        id: failed, channel_id: 'bot', feed_item_id: expect.stringMatching(/^post_/), status: 'failed', attempts: 15,
        last_error: 'Telegram answered 403: Forbidden: bot was blocked by the user', last_status: 403, late: false, created_at: '2026-03-01T10:00:01.000Z',
        delivered_at: null, latency_ms: null, next_attempt_at: null,
      },
      {
        id: delivered, channel_id: wh1, feed_item_id: expect.stringMatching(/^post_/), status: 'delivered', attempts: 1, last_error: null,
        last_status: 204, late: false, created_at: '2026-03-01T10:00:00.000Z', delivered_at: '2026-03-01T10:00:01.250Z', latency_ms: 2750, next_attempt_at: null,
      },
    ]);
  });

  it('filters by status, by webhook, by the bot channel, and by both', async () => {
    const { accountId, auth, wh1, wh2, botRow } = await setup();
    const a = await insertDelivery(accountId, { channelId: wh1, createdAt: '2026-03-01T10:00:00Z', status: 'failed' });
    const b = await insertDelivery(accountId, { channelId: wh2, createdAt: '2026-03-01T10:00:01Z', status: 'failed' });
    const c = await insertDelivery(accountId, { channelId: botRow, createdAt: '2026-03-01T10:00:02Z', status: 'delivered', deliveredAt: '2026-03-01T10:00:03Z' });
    const d = await insertDelivery(accountId, { channelId: wh1, createdAt: '2026-03-01T10:00:03Z' });
    expect(ids((await list(auth, { status: 'failed' }).expect(200)).body)).toEqual([b, a]);
    expect(ids((await list(auth, { status: 'pending' }).expect(200)).body)).toEqual([d]);
    expect(ids((await list(auth, { channel: wh1 }).expect(200)).body)).toEqual([d, a]);
    expect(ids((await list(auth, { channel: 'bot' }).expect(200)).body)).toEqual([c]);
    expect(ids((await list(auth, { channel: wh1, status: 'failed' }).expect(200)).body)).toEqual([a]);
    expect(ids((await list(auth, { channel: 'wh_notmine' }).expect(200)).body)).toEqual([]);
  });

  it("lists one feed item's deliveries, one per channel with its own delivered_at, and a late item's chat deliveries as skipped", async () => {
    const { accountId, auth, wh1, wh2, botRow } = await setup();
    const detectedAt = '2026-03-01T10:00:00.000Z';
    const first = await insertDelivery(accountId, { channelId: wh1, createdAt: detectedAt, status: 'delivered', deliveredAt: '2026-03-01T10:00:00.400Z', late: true });
    const feedItemId = (await db().query<{ feed_item_id: string }>('SELECT feed_item_id FROM deliveries WHERE id = $1', [first])).rows[0]!.feed_item_id;
    const second = await insertDelivery(accountId, { channelId: wh2, feedItemId, createdAt: detectedAt, status: 'delivered', deliveredAt: '2026-03-01T10:00:01.900Z', late: true });
    const reason = 'not sent: a late alert, detected 1800 s after it was posted (more than ALERT_MAX_AGE_SECONDS, 900); chat platforms get no catch-up alerts';
    const skipped = await insertDelivery(accountId, { channelId: botRow, feedItemId, createdAt: detectedAt, status: 'skipped', late: true, lastError: reason });
    const other = await insertDelivery(accountId, { channelId: wh1, createdAt: '2026-03-01T10:00:05.000Z' });

    const body = (await list(auth, { feed_item: feedItemId }).expect(200)).body;
    expect(ids(body).sort()).toEqual([first, second, skipped].sort());
    expect(ids(body)).not.toContain(other);
    const byChannel = Object.fromEntries(body.data.map((row: { channel_id: string }) => [row.channel_id, row]));
    expect(byChannel[wh1]).toMatchObject({ status: 'delivered', late: true, delivered_at: '2026-03-01T10:00:00.400Z', latency_ms: 400 });
    expect(byChannel[wh2]).toMatchObject({ status: 'delivered', late: true, delivered_at: '2026-03-01T10:00:01.900Z', latency_ms: 1900 });
    expect(byChannel.bot).toMatchObject({ status: 'skipped', late: true, delivered_at: null, latency_ms: null, next_attempt_at: null, last_error: reason });
    expect(ids((await list(auth, { status: 'skipped' }).expect(200)).body)).toEqual([skipped]);
    expect(ids((await list(auth, { feed_item: feedItemId, channel: 'bot' }).expect(200)).body)).toEqual([skipped]);
    // Another account's item lists nothing; a malformed id is 400.
    const stranger = await gw.account();
    expect((await list(stranger.auth, { feed_item: feedItemId }).expect(200)).body.data).toEqual([]);
    const malformed = await list(auth, { feed_item: 'wh_abc' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toContain('feed_item');
    // A skipped delivery is final: it cannot be retried.
    const res = await retry(auth, skipped);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('is not failed (it is skipped)');
  });

  it('pages with next_cursor through rows that share a created_at or differ by a microsecond, losing and repeating nothing', async () => {
    const { accountId, auth, wh1, wh2 } = await setup();
    const times = [
      '2026-03-01T10:00:00.000000Z', '2026-03-01T10:00:00.000100Z', '2026-03-01T10:00:00.000200Z',
      '2026-03-01T10:00:01Z', '2026-03-01T10:00:01Z', '2026-03-01T10:00:01Z', '2026-03-01T10:00:02Z',
    ];
    for (const [i, createdAt] of times.entries()) {
      await insertDelivery(accountId, { channelId: i % 2 ? wh1 : wh2, createdAt, status: i % 3 ? 'failed' : 'pending' });
    }
    const all = ids((await list(auth, { limit: 100 }).expect(200)).body);
    expect(all).toHaveLength(7);
    for (const limit of [1, 2, 3]) expect(await everyPage(auth, { limit })).toEqual(all);
    const failed = ids((await list(auth, { status: 'failed', limit: 100 }).expect(200)).body);
    expect(await everyPage(auth, { status: 'failed', limit: 1 })).toEqual(failed);
    expect(await everyPage(auth, { channel: wh1, limit: 2 })).toEqual(ids((await list(auth, { channel: wh1 }).expect(200)).body));
  });

  it('answers 20 items by default, then a cursor', async () => {
    const { accountId, auth, wh1 } = await setup();
    for (let i = 0; i < 21; i += 1) await insertDelivery(accountId, { channelId: wh1, createdAt: new Date(Date.UTC(2026, 2, 1, 10, 0, i)).toISOString() });
    const first = await list(auth).expect(200);
    expect(first.body.data).toHaveLength(20);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await list(auth, { cursor: first.body.next_cursor }).expect(200);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
  });

  it('answers 400 for a cursor used with other filters, by another account, modified, or malformed', async () => {
    const owner = await setup();
    const other = await setup();
    for (let i = 0; i < 3; i += 1) {
      await insertDelivery(owner.accountId, { channelId: owner.wh1, createdAt: `2026-03-01T10:00:0${i}Z`, status: 'failed' });
      await insertDelivery(other.accountId, { channelId: other.wh1, createdAt: `2026-03-01T10:00:0${i}Z`, status: 'failed' });
    }
    const cursor: string = (await list(owner.auth, { status: 'failed', limit: 1 }).expect(200)).body.next_cursor;
    await list(owner.auth, { status: 'failed', cursor, limit: 5 }).expect(200);
    const [body, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ t: '0', id: 'x' })).toString('base64url');
    for (const [auth, query] of [
      [owner.auth, { cursor }],
      [owner.auth, { cursor, status: 'pending' }],
      [owner.auth, { cursor, status: 'failed', channel: owner.wh1 }],
      [other.auth, { cursor, status: 'failed' }],
      [owner.auth, { cursor: `${forged}.${mac}`, status: 'failed' }],
      [owner.auth, { cursor: `${body}.${mac}x`, status: 'failed' }],
      [owner.auth, { cursor: 'not-a-cursor', status: 'failed' }],
      [owner.auth, { cursor: `${body}.${mac}.extra`, status: 'failed' }],
    ] as const) {
      const res = await list(auth, query);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.stringContaining('cursor') });
    }
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ status: 'bounced' }, 'status'],
    [{ channel: 'trk_1' }, 'channel'],
    [{ channel: 'wh_a b' }, 'channel'],
    [{ since: '2026-01-01T00:00:00Z' }, 'since'],
  ])('answers 400 invalid_request for the query %j', async (query, field) => {
    const { auth } = await gw.account();
    const res = await list(auth, query as Record<string, string | number>);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.stringContaining(field) });
  });

  it("never lists another account's deliveries, even filtered by its webhook id", async () => {
    const owner = await setup();
    const other = await setup();
    await insertDelivery(owner.accountId, { channelId: owner.wh1, createdAt: '2026-03-01T10:00:00Z' });
    expect((await list(other.auth).expect(200)).body.data).toEqual([]);
    expect((await list(other.auth, { channel: owner.wh1 }).expect(200)).body.data).toEqual([]);
  });

  it('sets a failed delivery back to pending, due now, and writes one outbox row per retry', async () => {
    const { accountId, auth, wh1 } = await setup();
    const id = await insertDelivery(accountId, { channelId: wh1, createdAt: '2026-03-01T10:00:00Z', status: 'failed', attempts: 15, lastError: 'the receiver answered 500', lastStatus: 500 });
    const now = new Date('2026-03-02T08:30:00.000Z');
    gw.setNow(now);
    try {
      const res = await retry(auth, id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, status: 'pending', attempts: 15, last_error: 'the receiver answered 500', next_attempt_at: now.toISOString() });
      expect((await list(auth, { status: 'pending' }).expect(200)).body.data[0]).toEqual(res.body);
    } finally {
      gw.setNow(null);
    }
    const first = await outboxRows(id);
    expect(first).toEqual([{ queue: 'alert-deliveries', name: 'deliver-alert', job_id: expect.stringMatching(new RegExp(`^deliver-${id}-retry-\\d+$`)), payload: { deliveryId: id } }]);
    // What the outbox relay checks before it enqueues a row.
    expect(parseJobPayload(first[0].queue, first[0].name, first[0].payload).data).toEqual({ deliveryId: id });
    expect(assertJobId(first[0].job_id)).toBe(first[0].job_id);

    // Pending now: a second retry is refused and writes nothing.
    const again = await retry(auth, id);
    expect(again.status).toBe(400);
    expect(again.body.error).toEqual({ code: 'invalid_request', message: `delivery ${id} is not failed (it is pending); only failed deliveries can be retried` });
    expect(await outboxRows(id)).toHaveLength(1);

    // The notifier gives up again: the next retry is a new job.
    await db().query(`UPDATE deliveries SET status = 'failed' WHERE id = $1`, [id]);
    await retry(auth, id).expect(200);
    const second = await outboxRows(id);
    expect(second).toHaveLength(2);
    expect(second[1].job_id).toMatch(new RegExp(`^deliver-${id}-retry-\\d+$`));
    expect(second[1].job_id).not.toBe(second[0].job_id);
  });

  it('answers 400 for a delivered or pending delivery, or one whose channel is disabled, and changes nothing', async () => {
    const { accountId, auth, wh1 } = await setup();
    const delivered = await insertDelivery(accountId, { channelId: wh1, createdAt: '2026-03-01T10:00:00Z', status: 'delivered', deliveredAt: '2026-03-01T10:00:01Z' });
    const pending = await insertDelivery(accountId, { channelId: wh1, createdAt: '2026-03-01T10:00:01Z' });
    for (const id of [delivered, pending]) {
      const res = await retry(auth, id);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain('is not failed');
    }
    const failed = await insertDelivery(accountId, { channelId: wh1, createdAt: '2026-03-01T10:00:02Z', status: 'failed' });
    await db().query(`UPDATE notification_channels SET enabled = false, disabled_reason = 'gone' WHERE id = $1`, [wh1]);
    const disabled = await retry(auth, failed);
    expect(disabled.status).toBe(400);
    expect(disabled.body.error.message).toContain('disabled');
    expect(ids((await list(auth, { status: 'failed' }).expect(200)).body)).toEqual([failed]);
    for (const id of [delivered, pending, failed]) expect(await outboxRows(id)).toEqual([]);
  });

  it("answers 404 for an unknown delivery or another account's, and leaves it failed", async () => {
    const owner = await setup();
    const other = await setup();
    const theirs = await insertDelivery(owner.accountId, { channelId: owner.wh1, createdAt: '2026-03-01T10:00:00Z', status: 'failed' });
    for (const id of ['dlv_unknown', theirs]) {
      const res = await retry(other.auth, id);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(ids((await list(owner.auth, { status: 'failed' }).expect(200)).body)).toEqual([theirs]);
    expect(await outboxRows(theirs)).toEqual([]);
  });

  it('answers 400 to a retry with a body', async () => {
    const { accountId, auth, wh1 } = await setup();
    const id = await insertDelivery(accountId, { channelId: wh1, createdAt: '2026-03-01T10:00:00Z', status: 'failed' });
    const res = await request(gw.app).post(`/v1/notifications/deliveries/${id}/retry`).set(auth).send({ force: true });
    expect(res.status).toBe(400);
    expect(await outboxRows(id)).toEqual([]);
  });

  it('deletes the delivery log of a webhook that a PUT removes, and keeps the others', async () => {
    const { accountId, auth, wh1, wh2 } = await setup();
    await insertDelivery(accountId, { channelId: wh1, createdAt: '2026-03-01T10:00:00Z' });
    const kept = await insertDelivery(accountId, { channelId: wh2, createdAt: '2026-03-01T10:00:01Z' });
    await request(gw.app).put('/v1/notifications').set(auth).send({ webhooks: [{ id: wh2, url: 'https://example.com/b' }] }).expect(200);
    expect(ids((await list(auth).expect(200)).body)).toEqual([kept]);
  });
});

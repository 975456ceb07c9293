import { randomToken } from '@hashwatch/secrets';
import { request, useGateway } from '../../test-support/gateway-harness';
import { followCursor, type CursorPage } from '../../test-support/paging';
import { NOTICE_KINDS } from './notices.schema';

type Auth = Record<string, string>;

const TOKEN = '123456789:AAHn7ZkP2yQ-exampleToken_wxyz';

interface NoticeSeed {
  kind?: (typeof NOTICE_KINDS)[number];
  source?: string | null;
  channelId?: string | null;
  message?: string;
  openedAt: string;
  resolvedAt?: string | null;
}

describe('GET /v1/notices', () => {
  const gw = useGateway();
  const db = () => gw.env.database.db.pool;

  /** A notice row as @hashwatch/notices writes it. */
  async function insertNotice(userId: string, seed: NoticeSeed): Promise<string> {
    const id = `ntc_${randomToken(12)}`;
    await db().query(
      `INSERT INTO notices (id, user_id, kind, subject, source, channel_id, message, opened_at, resolved_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [id, userId, seed.kind ?? 'source_silent', id, seed.source ?? null, seed.channelId ?? null, seed.message ?? 'm', seed.openedAt, seed.resolvedAt ?? null],
    );
    return id;
  }

  const list = (auth: Auth, query: Record<string, string | number> = {}) => request(gw.app).get('/v1/notices').set(auth).query(query);
  const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);

  const everyPage = async (auth: Auth, query: Record<string, string | number>): Promise<string[]> =>
    (await followCursor(async (pageQuery) => (await list(auth, pageQuery).expect(200)).body as CursorPage, query)).ids;

  it('answers an empty list before any notice', async () => {
    const { auth } = await gw.account();
    expect((await list(auth).expect(200)).body).toEqual({ data: [], next_cursor: null });
  });

  it('lists notices newest first in the API shape, naming channels as the API does (wh_… or bot)', async () => {
    const { accountId, auth } = await gw.account('pro');
    const config = (
      await request(gw.app)
        .put('/v1/notifications')
        .set(auth)
        .send({ webhooks: [{ url: 'https://example.com/a' }], bot: { token: TOKEN, chat_id: '42' } })
        .expect(200)
    ).body;
    const webhookId = config.webhooks[0].id as string;
    const { rows } = await db().query<{ id: string }>(`SELECT id FROM notification_channels WHERE user_id = $1 AND kind = 'bot'`, [accountId]);
    const silent = await insertNotice(accountId, { source: '#btc', message: 'No post on #btc for 6 h', openedAt: '2026-11-20T10:00:00.000Z' });
    const failing = await insertNotice(accountId, {
      kind: 'channel_failing',
      channelId: webhookId,
      message: 'The receiver answers 500',
      openedAt: '2026-11-20T11:00:00.000Z',
      resolvedAt: '2026-11-20T11:30:00.250Z',
    });
    const bot = await insertNotice(accountId, { kind: 'channel_failing', channelId: rows[0]!.id, message: 'Telegram answers 403', openedAt: '2026-11-20T12:00:00.000Z' });
    const quota = await insertNotice(accountId, { kind: 'quota_warning', message: '80 % used', openedAt: '2026-11-20T12:00:00.000Z' });

    const res = await list(auth).expect(200);
    expect(res.body.next_cursor).toBeNull();
    // Same opened_at: the larger id first.
    const sameTime = [bot, quota].sort().reverse();
    expect(ids(res.body)).toEqual([...sameTime, failing, silent]);
    const byId = new Map((res.body.data as { id: string }[]).map((notice) => [notice.id, notice]));
    expect(byId.get(silent)).toEqual({
      id: silent, kind: 'source_silent', state: 'open', source: '#btc', channel_id: null, message: 'No post on #btc for 6 h',
      opened_at: '2026-11-20T10:00:00.000Z', resolved_at: null,
    });
    expect(byId.get(failing)).toEqual({
      id: failing, kind: 'channel_failing', state: 'resolved', source: null, channel_id: webhookId, message: 'The receiver answers 500',
      opened_at: '2026-11-20T11:00:00.000Z', resolved_at: '2026-11-20T11:30:00.250Z',
    });
    expect(byId.get(bot)).toMatchObject({ channel_id: 'bot', state: 'open' });
    expect(byId.get(quota)).toMatchObject({ kind: 'quota_warning', source: null, channel_id: null });
  });

  it('pages with next_cursor, filters by state, and never shows another account’s notices', async () => {
    const { accountId, auth } = await gw.account();
    const other = await gw.account();
    const open: string[] = [];
    const resolved: string[] = [];
    const inserted: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      // Microseconds apart: a cursor rounded to the millisecond would skip or repeat some.
      const openedAt = `2026-11-21T10:00:00.00${i}${i}1Z`;
      const id = await insertNotice(accountId, i % 2 === 0 ? { openedAt } : { openedAt, resolvedAt: '2026-11-22T00:00:00.000Z' });
      (i % 2 === 0 ? open : resolved).push(id);
      inserted.push(id);
    }
    await insertNotice(other.accountId, { openedAt: '2026-11-21T10:00:00.003Z' });

    const all = ids((await list(auth, { limit: 100 }).expect(200)).body);
    expect(all).toEqual([...inserted].reverse());
    expect(await everyPage(auth, { limit: 2 })).toEqual(all);
    expect(await everyPage(auth, { limit: 3, state: 'open' })).toEqual([...open].reverse());
    expect(await everyPage(auth, { limit: 1, state: 'resolved' })).toEqual([...resolved].reverse());
    expect(ids((await list(other.auth).expect(200)).body)).toHaveLength(1);
    expect(ids((await list(other.auth).expect(200)).body)).not.toEqual(expect.arrayContaining(all));
  });

  it('refuses bad query parameters and foreign or changed cursors in the error shape, changing nothing', async () => {
    const { accountId, auth } = await gw.account();
    const other = await gw.account();
    for (let i = 0; i < 3; i += 1) await insertNotice(accountId, { openedAt: `2026-11-21T10:00:0${i}.000Z` });
    const cursor = (await list(auth, { limit: 1 }).expect(200)).body.next_cursor as string;
    const cases: [Record<string, string | number>, RegExp, Auth?][] = [
      [{ state: 'closed' }, /^state: must be one of open, resolved/],
      [{ limit: 0 }, /^limit: must be an integer from 1 to 100/],
      [{ limit: 101 }, /^limit: must be an integer from 1 to 100/],
      [{ limit: 'ten' }, /^limit: must be an integer from 1 to 100/],
      [{ kind: 'source_silent' }, /kind/],
      [{ cursor: 'nonsense' }, /^cursor: malformed/],
      [{ cursor, state: 'open' }, /^cursor: not valid for this request/],
      [{ cursor }, /^cursor: not valid for this request/, other.auth],
    ];
    for (const [query, message, who] of cases) {
      const res = await list(who ?? auth, query).expect(400);
      expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.stringMatching(message) } });
    }
  });

  it('takes a dashboard session as well as an API key, and answers 401 without either', async () => {
    const email = `${randomToken(8).toLowerCase()}@example.com`;
    const { accountId } = await gw.checkout({ email, password: 'a long enough password 1' }, true);
    const notice = await insertNotice(accountId, { openedAt: '2026-11-21T10:00:00.000Z' });
    const session = await gw.signIn(email, 'a long enough password 1');
    expect(ids((await list({ Cookie: session.cookie }).expect(200)).body)).toEqual([notice]);
    const res = await request(gw.app).get('/v1/notices').expect(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('lists every kind the notices table takes', async () => {
    const { accountId, auth } = await gw.account();
    for (const [i, kind] of NOTICE_KINDS.entries()) await insertNotice(accountId, { kind, openedAt: `2026-11-21T10:00:0${i}.000Z` });
    const kinds = (await list(auth).expect(200)).body.data.map((notice: { kind: string }) => notice.kind);
    expect(kinds.sort()).toEqual([...NOTICE_KINDS].sort());
  });
});

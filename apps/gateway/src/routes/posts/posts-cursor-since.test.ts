import type { FeedItemRow } from '@hashwatch/feed';
import { feedFixture } from '../../test-support/feed-fixture';
import { request, useGateway } from '../../test-support/gateway-harness';

describe('GET /v1/posts cursors, since and engagement', () => {
  const gw = useGateway();
  const { item, store, storeMany, get, page, readAll, expectInvalid } = feedFixture(gw);

  describe('cursor', () => {
    let owner: { accountId: string; auth: Record<string, string> };
    let cursor: string;

    beforeAll(async () => {
      owner = await gw.account();
      await storeMany(owner.accountId, 5);
      cursor = (await page(owner.auth, { limit: 2 })).next_cursor as string;
    });

    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);

    it('is opaque: neither the id nor the time shows in it', async () => {
      const body = await page(owner.auth, { limit: 2 });
      expect(body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(body.next_cursor).not.toContain(body.data[1]?.id);
      expect(body.next_cursor).not.toContain(String(Date.parse(body.data[1]?.detected_at as string)));
    });

    it.each([
      ['its time', 3],
      ['its id', 12],
      ['its signature', -5],
    ])('answers 400 invalid_request when %s is modified', async (_what, at) => {
      const tampered = flip(cursor, at < 0 ? cursor.length + at : at);
      const res = await get(owner.auth, { cursor: tampered });
      expectInvalid(res, 'cursor:');
    });

    it.each(['abc', 'not a cursor!', '', 'A'.repeat(201), Buffer.from('xyz').toString('base64url')])('answers 400 invalid_request for the malformed cursor %j', async (bad) => {
      expectInvalid(await get(owner.auth, { cursor: bad }), 'cursor');
    });

    it("answers 400 for another account's cursor, even for the same position", async () => {
      const other = await gw.account();
      await storeMany(other.accountId, 5);
      const foreign = (await page(other.auth, { limit: 2 })).next_cursor as string;
      expectInvalid(await get(owner.auth, { cursor: foreign }), 'cursor:');
      expectInvalid(await get(other.auth, { cursor }), 'cursor:');
    });

    it.each<Record<string, string>>([{ hashtag: 'btc' }, { account: 'alice' }, { type: 'hashtag' }, { since: '2020-01-01T00:00:00Z' }])(
      'answers 400 when the cursor is sent with other filters: %j',
      async (filters) => {
        expectInvalid(await get(owner.auth, { ...filters, cursor }), 'cursor:');
      },
    );

    it('accepts the cursor with another limit and with the filters in another case', async () => {
      const filtered = await page(owner.auth, { hashtag: 'btc', limit: 2 });
      await page(owner.auth, { hashtag: 'BTC', limit: 3, cursor: filtered.next_cursor as string });
      expect((await page(owner.auth, { limit: 3, cursor })).data).toHaveLength(3);
    });
  });

  it('pages every filter to its end by cursor, newest first, with nothing lost or repeated across shared timestamps', async () => {
    const owner = await gw.account();
    const sourceSets = [['#btc'], ['#btc', '@alice'], ['@alice'], ['#eth', '@Alice'], ['#btc', '#eth', '@bob']];
    const stored: FeedItemRow[] = [];
    // 60 items in batches of 4: every batch shares one detected_at, so the cursor's id half decides.
    for (let batch = 0; batch < 15; batch += 1) {
      stored.push(
        ...(await store(
          Array.from({ length: 4 }, (_, i) => {
            const sources = sourceSets[(batch * 4 + i) % sourceSets.length] as string[];
            return item(owner.accountId, { type: (batch + i) % 3 === 0 ? 'account' : 'hashtag', sources });
          }),
        )),
      );
    }
    // A source matched later (the scanner's merge).
    const merged = stored[7] as FeedItemRow;
    await gw.env.database.db.pool.query(`UPDATE feed_items SET sources = sources || '{#doge}'::text[] WHERE id = $1`, [merged.id]);
    const sourcesOf = new Map(stored.map((row) => [row.id, row.id === merged.id ? [...row.sources, '#doge'] : row.sources]));
    const newest = [...stored].sort((a, b) => b.detectedAt.getTime() - a.detectedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const since = (stored[20] as FeedItemRow).detectedAt;

    const cases: [Record<string, string | number>, (row: FeedItemRow) => boolean][] = [
      [{ hashtag: 'btc' }, (row) => sourcesOf.get(row.id)?.includes('#btc') === true],
      [{ account: 'alice' }, (row) => sourcesOf.get(row.id)?.includes('@alice') === true],
      [{ hashtag: 'doge' }, (row) => row.id === merged.id],
      [{ hashtag: 'btc', account: 'alice' }, (row) => ['#btc', '@alice'].every((s) => sourcesOf.get(row.id)?.includes(s))],
      [{ hashtag: 'eth', type: 'account' }, (row) => row.type === 'account' && sourcesOf.get(row.id)?.includes('#eth') === true],
      [{ account: 'alice', since: since.toISOString() }, (row) => row.detectedAt > since && sourcesOf.get(row.id)?.includes('@alice') === true],
    ];
    for (const [query, matches] of cases) {
      const expected = newest.filter(matches).map((row) => row.id);
      expect(expected.length).toBeGreaterThan(0);
      const { ids } = await readAll(owner.auth, { ...query, limit: 3 });
      expect({ query, ids }).toEqual({ query, ids: expected });
    }
  });

  describe('since', () => {
    let owner: { accountId: string; auth: Record<string, string> };
    let all: FeedItemRow[];

    beforeAll(async () => {
      owner = await gw.account();
      all = await storeMany(owner.accountId, 45, 3);
    });

    it('answers only items detected strictly after since', async () => {
      const pivot = all[10] as FeedItemRow;
      const body = await page(owner.auth, { since: pivot.detectedAt.toISOString(), limit: 100 });
      expect(body.data.map((post) => post.id)).toEqual(all.filter((row) => row.detectedAt > pivot.detectedAt).map((row) => row.id));
      expect(body.data.some((post) => post.detected_at === pivot.detectedAt.toISOString())).toBe(false);
    });

    it('reads the same instant written with an offset, in basic format, or with more digits', async () => {
      const pivot = (all[10] as FeedItemRow).detectedAt;
      const expected = (await page(owner.auth, { since: pivot.toISOString(), limit: 100 })).data.map((post) => post.id);
      const plus2 = new Date(pivot.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
      const basic = pivot.toISOString().replace(/[-:]/g, '');
      const micro = pivot.toISOString().replace('Z', '999Z');
      for (const since of [plus2, plus2.replace('+02:00', '+0200'), plus2.replace('+02:00', '+02'), basic, micro]) {
        expect((await page(owner.auth, { since, limit: 100 })).data.map((post) => post.id)).toEqual(expected);
      }
    });

    it.each(['2026-11-22T01:24:59', '2026-11-22T01:24:59.123', '2026-11-22', 'yesterday', '2026-02-30T00:00:00Z', '2026-11-22T25:00:00Z', '1795310699123'])(
      'answers 400 invalid_request for since=%s (a zone is required)',
      async (since) => {
        expectInvalid(await get(owner.auth, { since }), 'since');
      },
    );

    it('pages through the items after since with the cursor, each exactly once', async () => {
      const pivot = all[30] as FeedItemRow;
      const since = pivot.detectedAt.toISOString();
      const { ids, pages } = await readAll(owner.auth, { since, limit: 4 });
      expect(ids).toEqual(all.slice(0, 30).map((row) => row.id));
      expect(pages).toBe(8);
    });

    it('lets a poller that passes the newest detected_at it has seen get every new item once', async () => {
      const poller = await gw.account();
      const seen: string[] = [];
      const stored: string[] = [];
      let since = '1970-01-01T00:00:00.000Z';
      for (let round = 0; round < 5; round += 1) {
        stored.push(...(await storeMany(poller.accountId, 3 + round, 2)).map((row) => row.id));
        const { ids } = await readAll(poller.auth, { since, limit: 3 });
        const first = await page(poller.auth, { since, limit: 1 });
        since = first.data[0]?.detected_at ?? since;
        seen.push(...ids);
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort()).toEqual([...stored].sort());
    });
  });

  describe('engagement', () => {
    it('shows the engagement object only when the source tracked engagement, with handles prefixed', async () => {
      const { accountId, auth } = await gw.account();
      const [plain, tracked, fresh] = await store([
        item(accountId),
        item(accountId, { engagementTracked: true }),
        item(accountId, { engagementTracked: true }),
      ]);
      const refreshed = new Date('2026-11-22T02:00:00.456Z');
      await gw.env.database.db.pool.query(
        `UPDATE feed_items SET retweet_count = 12, like_count = 340, reply_count = 5, retweeters = '{@bob}', likers = '{@carol,@dave}',
                repliers = '{}', engagement_updated_at = $2 WHERE id = $1`,
        [tracked?.id, refreshed],
      );
      const byId = new Map((await page(auth)).data.map((post) => [post.id, post]));
      expect(byId.get(plain?.id as string)?.engagement).toBeNull();
      expect(byId.get(tracked?.id as string)?.engagement).toEqual({
        retweet_count: 12,
        like_count: 340,
        reply_count: 5,
        retweeters: ['@bob'],
        likers: ['@carol', '@dave'],
        repliers: [],
        updated_at: '2026-11-22T02:00:00.456Z',
      });
      expect(byId.get(fresh?.id as string)?.engagement).toEqual({
        retweet_count: 0, like_count: 0, reply_count: 0, retweeters: [], likers: [], repliers: [],
        updated_at: fresh?.detectedAt.toISOString(),
      });
    });

    it('answers engagement items with parent_id and kind and a null engagement; other items have neither field', async () => {
      const { accountId, auth } = await gw.account();
      const [parent] = await store([item(accountId, { engagementTracked: true })]);
      const [reply] = await store([
        item(accountId, {
          type: 'engagement', dedupeKey: `e:${parent?.xPostId}:reply:42`, author: 'replier', authorName: 'Re Plier',
          text: 'good point', parentId: parent?.id ?? null, kind: 'reply', engagementTracked: true,
        }),
      ]);
      const body = await page(auth);
      expect(body.data[0]).toMatchObject({ id: reply?.id, type: 'engagement', author: '@replier', parent_id: parent?.id, kind: 'reply', engagement: null });
      expect(body.data[1]).not.toHaveProperty('parent_id');
      expect(body.data[1]).not.toHaveProperty('kind');
    });
  });

  it("never shows another account's items, whatever the filters", async () => {
    const mine = await gw.account();
    const theirs = await gw.account();
    const own = await storeMany(mine.accountId, 3);
    await store([item(theirs.accountId), item(theirs.accountId, { type: 'account', account: 'alice', sources: ['@alice'] })]);
    const queries: Record<string, string>[] = [{}, { hashtag: 'btc' }, { account: 'alice' }, { type: 'account' }, { since: '1970-01-01T00:00:00Z' }];
    for (const query of queries) {
      const body = await page(mine.auth, { ...query, limit: 100 });
      expect(body.data.every((post) => own.some((row) => row.id === post.id))).toBe(true);
    }
    expect((await page(theirs.auth)).data).toHaveLength(2);
  });

  it('documents every query parameter with its bounds and default in the OpenAPI document', async () => {
    const res = await request(gw.app).get('/v1/openapi.json').expect(200);
    const operation = res.body.paths['/v1/posts'].get;
    const params = Object.fromEntries(operation.parameters.map((p: { name: string }) => [p.name, p]));
    expect(Object.keys(params).sort()).toEqual(['account', 'cursor', 'hashtag', 'limit', 'since', 'type']);
    expect(params.limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(params.type.schema.enum).toEqual(['hashtag', 'account', 'engagement']);
    expect(params.hashtag.schema.pattern).toBe('^[\\p{L}\\p{M}\\p{N}_]{1,100}$');
    for (const param of Object.values(params) as { description?: string; required?: boolean }[]) {
      expect(param.description).toEqual(expect.any(String));
      expect(param.required).toBe(false);
    }
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '402', '413', '429', '500', '503']);
  });
});

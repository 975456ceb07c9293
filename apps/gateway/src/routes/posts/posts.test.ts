import type { FeedItemRow } from '@hashwatch/feed';
import { feedFixture, ISO_MS, type Page } from '../../test-support/feed-fixture';
import { request, useGateway } from '../../test-support/gateway-harness';

describe('GET /v1/posts items, filters and pages', () => {
  const gw = useGateway();
  const { item, store, storeMany, get, page, readAll, expectInvalid } = feedFixture(gw);

  describe('items and order', () => {
    it('answers every field of a hashtag post, prefixed author and sources but a bare hashtag, and a null next_cursor when all fit', async () => {
      const { accountId, auth } = await gw.account();
      const [stored] = await store([item(accountId, { sources: ['#BTC', '@Alice'], author: 'satoshi', authorName: 'Satoshi N' })]);
      const res = await get(auth);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({
        data: [
          {
            id: stored?.id,
            type: 'hashtag',
            hashtag: 'btc',
            account: null,
            sources: ['#btc', '@alice'],
            matched_by: null,
            author: '@satoshi',
            author_name: 'Satoshi N',
            text: stored?.text,
            url: stored?.url,
            urls: [],
            media: [],
            quoted: null,
            lang: null,
            edited_at: null,
            deleted: false,
            posted_at: '2026-11-22T01:00:00.123Z',
            detected_at: stored?.detectedAt.toISOString(),
            engagement: null,
          },
        ],
        next_cursor: null,
      });
      expect(res.body.data[0].detected_at).toMatch(ISO_MS);
    });

    it('answers what a post carries: links, media, the quoted post, its language and an edit, as compact JSON', async () => {
      const { accountId, auth } = await gw.account();
      const urls = [{ url: 'https://t.co/D8LLYXkHSm', expanded_url: 'https://example.com/a?b=1&c=2', display_url: 'example.com/a?b=1…' }];
      const media = [{ type: 'photo', url: 'https://pbs.twimg.com/media/F.jpg', preview_image_url: null, width: 1200, height: 675, alt_text: 'chart "up"' }];
      const quoted = { id: '1861', author: '@alice', author_name: 'Alice', text: 'Fish & Chips <3', url: 'https://x.com/alice/status/1861' };
      const text = 'Rates & bonds <now> https://t.co/D8LLYXkHSm';
      const [stored] = await store([item(accountId, { text, urls, media, quoted, lang: 'und', edited: true })]);
      const res = await get(auth);
      expect(res.status).toBe(200);
      expect(res.body.data[0]).toMatchObject({ text, urls, media, quoted, lang: 'und', edited_at: stored?.detectedAt.toISOString(), deleted: false });
      expect(res.text).toBe(JSON.stringify(JSON.parse(res.text)));
    });

    it('carries any text unchanged: quotes, backslashes, control characters, line separators and emoji', async () => {
      const { accountId, auth } = await gw.account();
      const text = 'say "hi" \\ back\nslash\ttab \u0001\u001f \u2028\u2029 </script> 🚀 café #btc';
      const authorName = 'Zoë "Z" \\ O\'Neil';
      await store([item(accountId, { text, authorName })]);
      const res = await get(auth);
      expect(res.status).toBe(200);
      expect(res.body.data[0]).toMatchObject({ text, author_name: authorName });
      // One compact JSON document, as JSON.stringify would write it.
      expect(res.text).toBe(JSON.stringify(JSON.parse(res.text)));
    });

    it('writes every timestamp with exactly three digits of milliseconds, whole seconds and trailing zeros included', async () => {
      const { accountId, auth } = await gw.account();
      // A text that looks like one of the item's own keys stays as it was posted.
      const text = 'log: {"posted_at":"2026-01-01T00:00:00","detected_at":"2026-01-01T00:00:00.5"} #btc';
      await store([
        item(accountId, { postedAt: new Date('2026-11-22T01:00:00.000Z') }),
        item(accountId, { postedAt: new Date('2026-11-22T01:00:00.120Z'), text }),
      ]);
      await gw.env.database.db.pool.query(`UPDATE feed_items SET detected_at = '2026-11-22T01:00:05.100Z' WHERE user_id = $1`, [accountId]);
      const body = await page(auth);
      expect(body.data.map((post) => post.detected_at)).toEqual(['2026-11-22T01:00:05.100Z', '2026-11-22T01:00:05.100Z']);
      expect(body.data.map((post) => post.posted_at).sort()).toEqual(['2026-11-22T01:00:00.000Z', '2026-11-22T01:00:00.120Z']);
      expect(body.data.find((post) => post.posted_at === '2026-11-22T01:00:00.120Z')?.text).toBe(text);
    });

    it('answers an empty page for an account with no items', async () => {
      const { auth } = await gw.account();
      expect(await page(auth)).toEqual({ data: [], next_cursor: null });
    });

    it('orders newest first by detected_at, then by id for items stored in one transaction', async () => {
      const { accountId, auth } = await gw.account();
      const expected = await storeMany(accountId, 12, 4);
      const body = await page(auth, { limit: 100 });
      expect(body.data.map((post) => post.id)).toEqual(expected.map((row) => row.id));
      const times = body.data.map((post) => Date.parse(post.detected_at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });
  });

  describe('filters', () => {
    let owner: { accountId: string; auth: Record<string, string> };
    let rows: Record<string, FeedItemRow>;

    beforeAll(async () => {
      owner = await gw.account();
      const id = owner.accountId;
      const [btc, both, alice, eth] = await store([
        item(id, { hashtag: 'btc', sources: ['#btc'] }),
        item(id, { hashtag: 'eth', sources: ['#eth', '#btc', '@alice'] }),
        item(id, { type: 'account', hashtag: null, account: 'Alice', sources: ['@Alice'] }),
        item(id, { hashtag: 'eth', sources: ['#eth'] }),
      ]);
      const [like] = await store([
        item(id, { type: 'engagement', dedupeKey: 'e:1:like:9', sources: ['#btc'], parentId: btc?.id ?? null, kind: 'like', postedAt: null }),
      ]);
      rows = { btc, both, alice, eth, like } as Record<string, FeedItemRow>;
    });

    const ids = (body: Page) => body.data.map((post) => post.id).sort();
    const expectIds = (names: string[]) => names.map((name) => rows[name]?.id).sort();

    it('filters on a hashtag found in any position of sources, case-insensitively', async () => {
      expect(ids(await page(owner.auth, { hashtag: 'btc' }))).toEqual(expectIds(['btc', 'both', 'like']));
      expect(ids(await page(owner.auth, { hashtag: 'BTC' }))).toEqual(expectIds(['btc', 'both', 'like']));
      expect(ids(await page(owner.auth, { hashtag: 'eth' }))).toEqual(expectIds(['both', 'eth']));
      expect(ids(await page(owner.auth, { hashtag: 'doge' }))).toEqual([]);
    });

    it('filters on an account found in any position of sources, case-insensitively', async () => {
      expect(ids(await page(owner.auth, { account: 'alice' }))).toEqual(expectIds(['both', 'alice']));
      expect(ids(await page(owner.auth, { account: 'ALICE' }))).toEqual(expectIds(['both', 'alice']));
      expect(ids(await page(owner.auth, { account: 'bob' }))).toEqual([]);
    });

    it('filters on type', async () => {
      expect(ids(await page(owner.auth, { type: 'hashtag' }))).toEqual(expectIds(['btc', 'both', 'eth']));
      expect(ids(await page(owner.auth, { type: 'account' }))).toEqual(expectIds(['alice']));
      expect(ids(await page(owner.auth, { type: 'engagement' }))).toEqual(expectIds(['like']));
    });

    it('combines filters', async () => {
      expect(ids(await page(owner.auth, { hashtag: 'btc', account: 'alice' }))).toEqual(expectIds(['both']));
      expect(ids(await page(owner.auth, { hashtag: 'btc', type: 'engagement' }))).toEqual(expectIds(['like']));
      expect(ids(await page(owner.auth, { account: 'alice', type: 'account' }))).toEqual(expectIds(['alice']));
    });

    it("never shows another account's item, even through a source row that names it", async () => {
      const other = await gw.account();
      const [foreign] = await store([item(other.accountId, { sources: ['#btc'] })]);
      // A row of this account pointing at the other's item: the page joins each row to its item and checks the
      // item's account too, so it is skipped, and so is a row left behind by an item deleted by hand.
      await gw.env.database.db.pool.query(
        `INSERT INTO feed_item_sources (user_id, source, detected_at, item_id, type)
         VALUES ($1, '#btc', now(), $2, 'hashtag'), ($1, '#btc', now(), 'post_gone', 'hashtag')`,
        [owner.accountId, foreign?.id],
      );
      try {
        expect(ids(await page(owner.auth, { hashtag: 'btc' }))).toEqual(expectIds(['btc', 'both', 'like']));
        expect(ids(await page(owner.auth, { hashtag: 'btc', limit: 1 }))).toEqual(expectIds(['like']));
        expect(ids(await page(other.auth, { hashtag: 'btc' }))).toEqual([foreign?.id]);
      } finally {
        await gw.env.database.db.pool.query(`DELETE FROM feed_item_sources WHERE user_id = $1 AND item_id IN ($2, 'post_gone')`, [owner.accountId, foreign?.id]);
      }
    });

    it.each([
      [{ hashtag: '#btc' }, 'hashtag'],
      [{ hashtag: 'two words' }, 'hashtag'],
      [{ hashtag: '' }, 'hashtag'],
      [{ account: '@alice' }, 'account'],
      [{ account: 'a'.repeat(16) }, 'account'],
      [{ type: 'retweet' }, 'type'],
      [{ colour: 'red' }, 'colour'],
    ])('answers 400 invalid_request naming the parameter for %j', async (query, field) => {
      expectInvalid(await get(owner.auth, query), field);
    });

    it('answers 400 for a parameter given twice', async () => {
      expectInvalid(await request(gw.app).get('/v1/posts?type=hashtag&type=account').set(owner.auth), 'type');
      expectInvalid(await request(gw.app).get('/v1/posts?limit=1&limit=2').set(owner.auth), 'limit');
    });
  });

  describe('limit and pages', () => {
    let owner: { accountId: string; auth: Record<string, string> };
    let all: FeedItemRow[];

    beforeAll(async () => {
      // Business: these tests send about 100 requests, past Starter's 60 a minute.
      owner = await gw.account('business');
      // Batches of 7 share a detected_at, so pages also break between items ordered by id alone.
      all = await storeMany(owner.accountId, 250, 7);
    });

    it('answers 20 items by default and up to limit, with a next_cursor while more remain', async () => {
      const first = await page(owner.auth);
      expect(first.data.map((post) => post.id)).toEqual(all.slice(0, 20).map((row) => row.id));
      expect(first.next_cursor).toEqual(expect.any(String));
      expect((await page(owner.auth, { limit: 1 })).data).toHaveLength(1);
      expect((await page(owner.auth, { limit: 100 })).data).toHaveLength(100);
    });

    it.each(['0', '101', '-1', 'abc', '1.5', ''])('answers 400 invalid_request for limit=%s', async (limit) => {
      expectInvalid(await get(owner.auth, { limit }), 'limit');
    });

    it.each([100, 20, 7])('serves 250 items exactly once, newest first, following next_cursor with limit %i', async (limit) => {
      const { ids, pages } = await readAll(owner.auth, { limit });
      expect(ids).toEqual(all.map((row) => row.id));
      expect(pages).toBe(Math.ceil(250 / limit));
    });

    it('answers a null next_cursor on a page that ends exactly at the last item', async () => {
      const first = await page(owner.auth, { limit: 100 });
      const second = await page(owner.auth, { limit: 100, cursor: first.next_cursor as string });
      const rest = await page(owner.auth, { limit: 50, cursor: second.next_cursor as string });
      expect(rest.data).toHaveLength(50);
      expect(rest.next_cursor).toBeNull();
    });

    it('keeps a page stable when newer items arrive between pages', async () => {
      const other = await gw.account();
      const stored = await storeMany(other.accountId, 30, 3);
      const first = await page(other.auth, { limit: 10 });
      await storeMany(other.accountId, 5);
      const second = await page(other.auth, { limit: 10, cursor: first.next_cursor as string });
      expect(second.data.map((post) => post.id)).toEqual(stored.slice(10, 20).map((row) => row.id));
    });
  });
});

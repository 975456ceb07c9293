import { createAccount } from '@hashwatch/accounts';
import { transaction } from '@hashwatch/db';
import { useTestEnvironment } from '@hashwatch/testing';
import { insertFeedItems } from './insert-feed-items';
import { itemJsonSql } from './item-json';
import { hashtagPost } from './test-support/hashtag-post';

/**
 * feed_items.item_head (prisma/migrations/20261125120000_feed_item_head): every field GET /v1/posts shows but
 * `engagement`, as JSON without the closing brace, written by a trigger on insert and on every update of a
 * column it shows.
 */
describe('feed_items.item_head', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  let userId: string;

  beforeAll(async () => {
    ({ accountId: userId } = await createAccount(env.database.db.prisma, { email: 'head@example.com', planId: 'starter' }));
  });

  async function head(id: string): Promise<Record<string, unknown>> {
    const { rows } = await pool().query<{ item_head: string }>(`SELECT ${itemJsonSql('f')} AS item_head FROM feed_items f WHERE id = $1`, [id]);
    const text = rows[0]?.item_head;
    if (text === undefined) throw new Error(`no feed item ${id}`);
    return JSON.parse(`${text}}`) as Record<string, unknown>;
  }

  it('holds every shown field but engagement when an item is stored, with millisecond UTC timestamps', async () => {
    const text = 'quotes " and \\ backslash, a\nnewline, \u2028, tab\t, emoji 🚀 and a look-alike "detected_at":"2001-01-01T00:00:00.000Z"';
    const { inserted } = await transaction(pool(), (client) =>
      insertFeedItems(client, [hashtagPost(userId, 1, { text, authorName: 'Ünïcode "Name"', postedAt: new Date('2026-11-22T01:24:59.120Z') })]),
    );
    const item = inserted[0];
    if (!item) throw new Error('not stored');
    expect(await head(item.id)).toEqual({
      id: item.id,
      type: 'hashtag',
      hashtag: 'btc',
      account: null,
      sources: ['#btc'],
      author: '@author1',
      author_name: 'Ünïcode "Name"',
      text,
      url: item.url,
      urls: [],
      media: [],
      quoted: null,
      lang: null,
      edited_at: null,
      deleted: false,
      posted_at: '2026-11-22T01:24:59.120Z',
      detected_at: item.detectedAt.toISOString(),
    });
  });

  it('shows a post\'s language, links, media and quote as stored, and an edit and a deletion as they happen', async () => {
    const urls = [{ url: 'https://t.co/abc', expanded_url: 'https://example.com/a?b=1&c=<2>', display_url: 'example.com/a?b=1…' }];
    const media = [{ type: 'photo', url: 'https://pbs.twimg.com/media/x.jpg', preview_image_url: null, width: 1200, height: 675, alt_text: 'A chart "BTC" ↗' }];
    const quoted = { id: '77', author: '@q', author_name: 'Q', text: 'Fish & Chips <3', url: 'https://x.com/q/status/77' };
    const { inserted } = await transaction(pool(), (client) =>
      insertFeedItems(client, [hashtagPost(userId, 5, { lang: 'und', urls, media, quoted, edited: true, text: 'a & b https://t.co/abc' })]),
    );
    const item = inserted[0];
    if (!item) throw new Error('not stored');
    expect(await head(item.id)).toMatchObject({ text: 'a & b https://t.co/abc', urls, media, quoted, lang: 'und', edited_at: item.detectedAt.toISOString(), deleted: false });
    // Nothing writes the extra by hand, and a plain item keeps it NULL (the defaults, read as such).
    await pool().query(`UPDATE feed_items SET item_extra = ',"forged":true' WHERE id = $1`, [item.id]);
    expect(await head(item.id)).not.toHaveProperty('forged');
    const [plain] = (await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, 6, { lang: 'en' })]))).inserted;
    const { rows } = await pool().query<{ item_extra: string | null }>('SELECT item_extra FROM feed_items WHERE id = $1', [plain?.id]);
    expect(rows).toEqual([{ item_extra: null }]);
    expect(await head(plain?.id as string)).toMatchObject({ urls: [], media: [], quoted: null, lang: 'en', edited_at: null, deleted: false });
    await pool().query(`UPDATE feed_items SET text = '', author_name = '', urls = NULL, media = NULL, quoted = NULL, deleted = true WHERE id = $1`, [item.id]);
    expect(await head(item.id)).toMatchObject({ text: '', author_name: '', urls: [], media: [], quoted: null, deleted: true, edited_at: item.detectedAt.toISOString() });
  });

  it("is the insert trigger's JSON to the byte, for every kind of item the insert writes it for", async () => {
    const urls = [{ url: 'https://t.co/abc', expanded_url: 'https://example.com/a?b=1&c=<2>', display_url: 'example.com/a?b=1…' }];
    const media = [{ type: 'photo', url: null, preview_image_url: 'https://pbs.twimg.com/p.jpg', width: null, height: 675, alt_text: 'A "chart" \\ ↗' }];
    const quoted = { id: '77', author: '@q', author_name: 'Q\n', text: 'Fish & Chips <3 \u2028', url: 'https://x.com/q/status/77' };
    const { accountId: other } = await createAccount(env.database.db.prisma, { email: 'head-other@example.com', planId: 'starter' });
    const odd = 'quotes " \\ \n\t\u0001 \u2028 🚀 &amp; <b>';
    const items = [
      hashtagPost(userId, 21, { text: odd, authorName: 'Ünïcode "Name"', lang: 'und', sources: ['#BTC', '@Alice', '#btc'], account: 'Alice' }),
      hashtagPost(other, 21, { text: odd, authorName: 'Ünïcode "Name"', lang: 'und', sources: ['#btc'] }),
      hashtagPost(userId, 22, { urls, media, quoted, edited: true, authorId: null, postedAt: null }),
      hashtagPost(other, 22, { urls, edited: false }),
      hashtagPost(userId, 23, { type: 'engagement', dedupeKey: 'e:23:like:9', parentId: 'post_"parent"', kind: 'like', hashtag: null, sources: [] }),
      hashtagPost(userId, 24, { type: 'engagement', dedupeKey: 'e:24:reply:9', parentId: 'post_parent', kind: 'reply', media }),
    ];
    const { inserted } = await transaction(pool(), (client) => insertFeedItems(client, items));
    expect(inserted).toHaveLength(items.length);
    const ids = inserted.map((item) => item.id);
    const read = async () =>
      (await pool().query<{ id: string; item_head: string; item_extra: string | null }>('SELECT id, item_head, item_extra FROM feed_items WHERE id = ANY($1) ORDER BY id', [ids])).rows;
    const written = await read();
    // Clearing the head makes the update trigger write both again, as the insert trigger does for any other writer.
    await pool().query('UPDATE feed_items SET item_head = NULL WHERE id = ANY($1)', [ids]);
    expect(await read()).toEqual(written);
    expect(written.every((row) => row.item_head.length > 0)).toBe(true);
    expect(written.filter((row) => row.item_extra !== null)).toHaveLength(3);
  });

  it('is written by the insert trigger for a row stored without it', async () => {
    const [stored] = (await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, 25)]))).inserted;
    await pool().query(
      `INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, sources, x_post_id, author, author_name, text, url, posted_at, detected_at)
       SELECT 'post_byhand', user_id, 'x:byhand', type, hashtag, sources, x_post_id, author, author_name, text, url, posted_at, detected_at
         FROM feed_items WHERE id = $1`,
      [stored?.id],
    );
    expect(await head('post_byhand')).toEqual({ ...(await head(stored?.id as string)), id: 'post_byhand' });
  });

  it('carries parent_id and kind for engagement items, and null for what is missing', async () => {
    const { inserted } = await transaction(pool(), (client) =>
      insertFeedItems(client, [
        hashtagPost(userId, 2, { type: 'engagement', dedupeKey: 'e:2:like:9', parentId: 'post_parent', kind: 'like', postedAt: null, hashtag: null, sources: [] }),
      ]),
    );
    const item = inserted[0];
    if (!item) throw new Error('not stored');
    expect(await head(item.id)).toMatchObject({ type: 'engagement', hashtag: null, sources: [], posted_at: null, parent_id: 'post_parent', kind: 'like' });
  });

  it('follows updates of what it shows (the scanner adding a source), and cannot be set by hand', async () => {
    const { inserted } = await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, 3)]));
    const id = inserted[0]?.id as string;
    await pool().query(`UPDATE feed_items SET sources = sources || '{@alice}', account = 'alice' WHERE id = $1`, [id]);
    expect(await head(id)).toMatchObject({ sources: ['#btc', '@alice'], account: 'alice' });
    await pool().query(`UPDATE feed_items SET item_head = '{"id":"forged"' WHERE id = $1`, [id]);
    expect(await head(id)).toMatchObject({ id, sources: ['#btc', '@alice'] });
  });

  it('is not rewritten by an engagement refresh, which writes none of its columns', async () => {
    const { inserted } = await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, 4, { engagementTracked: true })]));
    const id = inserted[0]?.id as string;
    const before = await pool().query<{ item_head: string }>('SELECT item_head FROM feed_items WHERE id = $1', [id]);
    // A head written here would be caught below; the trigger does not run for these columns at all.
    await pool().query('ALTER TABLE feed_items DISABLE TRIGGER feed_items_head');
    await pool().query(`UPDATE feed_items SET item_head = 'stale' WHERE id = $1`, [id]);
    await pool().query('ALTER TABLE feed_items ENABLE TRIGGER feed_items_head');
    await pool().query(
      `UPDATE feed_items SET like_count = 5, likers = '{@bob}', engagement_updated_at = now(), track_likes = false, engagement_tracked = true
        WHERE id = $1`,
      [id],
    );
    const { rows } = await pool().query<{ item_head: string }>('SELECT item_head FROM feed_items WHERE id = $1', [id]);
    expect(rows[0]?.item_head).toBe('stale');
    await pool().query('UPDATE feed_items SET item_head = NULL WHERE id = $1', [id]);
    expect((await pool().query<{ item_head: string }>('SELECT item_head FROM feed_items WHERE id = $1', [id])).rows[0]?.item_head).toBe(before.rows[0]?.item_head);
  });
});

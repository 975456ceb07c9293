import { createAccount } from '@hashwatch/accounts';
import { transaction } from '@hashwatch/db';
import { useTestEnvironment } from '@hashwatch/testing';
import { insertFeedItems } from './insert-feed-items';
import { hashtagPost } from './test-support/hashtag-post';

describe('insertFeedItems', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  let userId: string;

  beforeAll(async () => {
    ({ accountId: userId } = await createAccount(env.database.db.prisma, { email: 'feed@example.com', planId: 'starter' }));
  });

  it('stores a batch with new post_ ids and one millisecond detected_at for the whole transaction', async () => {
    const before = Date.now();
    const { inserted } = await transaction(pool(), (client) =>
      insertFeedItems(client, [
        hashtagPost(userId, 1, { sources: ['#BTC', '@Alice'], account: 'Alice', author: '@already' }),
        hashtagPost(userId, 2, { engagementTracked: true, trackLikes: false }),
      ]),
    );
    expect(inserted).toHaveLength(2);
    const [first, second] = inserted;
    expect(first?.id).toMatch(/^post_[A-Za-z0-9_-]{16}$/);
    expect(second?.id).not.toBe(first?.id);
    expect(first?.detectedAt.getTime()).toBe(second?.detectedAt.getTime());
    expect(first?.detectedAt.getTime()).toBeGreaterThanOrEqual(before);

    const { rows } = await pool().query(
      `SELECT id, sources, author, detected_at, posted_at, engagement_tracked, track_likes, track_reposts, parent_id, kind,
              retweet_count, retweeters
         FROM feed_items WHERE user_id = $1 ORDER BY x_post_id`,
      [userId],
    );
    expect(rows).toEqual([
      {
        id: first?.id, sources: ['#btc', '@alice'], author: '@already', detected_at: first?.detectedAt,
        posted_at: new Date('2026-11-22T01:00:00.123Z'), engagement_tracked: false, track_likes: true, track_reposts: true,
        parent_id: null, kind: null, retweet_count: 0, retweeters: [],
      },
      {
        id: second?.id, sources: ['#btc'], author: '@author2', detected_at: first?.detectedAt,
        posted_at: new Date('2026-11-22T01:00:00.123Z'), engagement_tracked: true, track_likes: false, track_reposts: true,
        parent_id: null, kind: null, retweet_count: 0, retweeters: [],
      },
    ]);
    expect(first).toMatchObject({ sources: ['#btc', '@alice'], author: '@already', engagementTracked: false, kind: null });
  });

  it('skips an item already stored for the account and one repeated in the batch, and returns only what it stored', async () => {
    const { accountId: otherUser } = await createAccount(env.database.db.prisma, { email: 'other@example.com', planId: 'starter' });
    await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, 10)]));
    const { inserted } = await transaction(pool(), (client) =>
      insertFeedItems(client, [
        hashtagPost(userId, 10, { text: 'again' }),
        hashtagPost(userId, 11),
        hashtagPost(userId, 11, { text: 'twice in one batch' }),
        hashtagPost(otherUser, 10),
      ]),
    );
    expect(inserted.map((row) => [row.userId, row.dedupeKey, row.text])).toEqual([
      [userId, 'x:11', 'post 11 about #btc'],
      [otherUser, 'x:10', 'post 10 about #btc'],
    ]);
    const { rows } = await pool().query(`SELECT text FROM feed_items WHERE user_id = $1 AND dedupe_key IN ('x:10', 'x:11') ORDER BY dedupe_key`, [userId]);
    expect(rows.map((row) => row.text)).toEqual(['post 10 about #btc', 'post 11 about #btc']);
  });

  it("stores each item with its own post's content when many accounts share posts and a post's content differs", async () => {
    const accounts = [userId];
    for (const email of ['share1@example.com', 'share2@example.com', 'share3@example.com']) {
      accounts.push((await createAccount(env.database.db.prisma, { email, planId: 'starter' })).accountId);
    }
    const link = [{ url: 'https://t.co/a', expanded_url: 'https://example.com/a?x=1&y=2', display_url: 'example.com/a' }];
    // Post 60 for every account, post 61 for every account with a link; post 62 twice with different content (an
    // edit seen by two accounts at once, and an author id missing for one): each item keeps what it was given.
    const items = [
      ...accounts.map((account) => hashtagPost(account, 60)),
      ...accounts.map((account) => hashtagPost(account, 61, { urls: link, lang: 'en' })),
      hashtagPost(accounts[0] as string, 62, { text: 'first version', authorId: null }),
      hashtagPost(accounts[1] as string, 62, { text: 'second version', edited: true, authorId: '' }),
    ];
    const { inserted } = await transaction(pool(), (client) => insertFeedItems(client, items));
    expect(inserted).toHaveLength(10);
    const { rows } = await pool().query(
      `SELECT user_id, x_post_id, text, author, author_id, url, lang, urls, edited_at IS NOT NULL AS edited
         FROM feed_items WHERE x_post_id IN ('60', '61', '62')`,
    );
    const stored = new Map(rows.map((row) => [`${row.user_id} ${row.x_post_id}`, row]));
    for (const account of accounts) {
      expect(stored.get(`${account} 60`)).toEqual({ user_id: account, x_post_id: '60', text: 'post 60 about #btc', author: '@author60', author_id: 'u60', url: 'https://x.com/author60/status/60', lang: null, urls: null, edited: false });
      expect(stored.get(`${account} 61`)).toMatchObject({ text: 'post 61 about #btc', lang: 'en', urls: link, edited: false });
    }
    expect(stored.get(`${accounts[0]} 62`)).toMatchObject({ text: 'first version', author_id: null, edited: false });
    expect(stored.get(`${accounts[1]} 62`)).toMatchObject({ text: 'second version', author_id: '', edited: true });
    expect(inserted.map((row) => [row.xPostId, row.text, row.author])).toEqual(items.map((item) => [item.xPostId, item.text, `@${item.author}`]));
  });

  it('stores engagement items with their parent and kind', async () => {
    const { inserted } = await transaction(pool(), async (client) => {
      const parent = await insertFeedItems(client, [hashtagPost(userId, 20, { engagementTracked: true })]);
      return insertFeedItems(client, [
        hashtagPost(userId, 20, {
          dedupeKey: 'e:20:like:777', type: 'engagement', author: 'liker', text: 'liked the post', postedAt: null,
          parentId: parent.inserted[0]?.id ?? null, kind: 'like',
        }),
      ]);
    });
    const { rows } = await pool().query(`SELECT type, parent_id, kind, posted_at FROM feed_items WHERE id = $1`, [inserted[0]?.id]);
    expect(rows[0]).toEqual({ type: 'engagement', parent_id: expect.stringMatching(/^post_/), kind: 'like', posted_at: null });
  });

  it('refuses an engagement item without its parent and kind, and writes nothing of the batch', async () => {
    const batch = [hashtagPost(userId, 30), hashtagPost(userId, 31, { dedupeKey: 'e:31:like:1', type: 'engagement', kind: 'like' })];
    await expect(transaction(pool(), (client) => insertFeedItems(client, batch))).rejects.toThrow('parentId and kind');
    const { rowCount } = await pool().query(`SELECT 1 FROM feed_items WHERE user_id = $1 AND dedupe_key = 'x:30'`, [userId]);
    expect(rowCount).toBe(0);
  });

  it('stores a batch of 1,000 items, feed clock included, with one statement', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => hashtagPost(userId, 100_000 + i));
    let statements = 0;
    const { inserted } = await transaction(pool(), (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      const counted = Object.assign(Object.create(client) as typeof client, {
        query: (...args: unknown[]) => {
          statements += 1;
          return query(...args);
        },
      });
      return insertFeedItems(counted, items);
    });
    expect(statements).toBe(1);
    expect(inserted).toHaveLength(1000);
    expect(new Set(inserted.map((row) => row.id)).size).toBe(1000);
    expect(inserted.every((row) => /^post_[A-Za-z0-9_-]{16}$/.test(row.id))).toBe(true);
    const { rows } = await pool().query<{ n: number; at: Date }>(
      'SELECT count(*)::int AS n, max(detected_at) AS at FROM feed_items WHERE id = ANY($1)',
      [inserted.map((row) => row.id)],
    );
    expect(rows[0]).toEqual({ n: 1000, at: inserted[0]?.detectedAt });
  });

  it('fails and stores nothing when the feed clock has no row', async () => {
    await expect(
      transaction(pool(), async (client) => {
        await client.query('DELETE FROM feed_clock');
        await insertFeedItems(client, [hashtagPost(userId, 40)]);
      }),
    ).rejects.toThrow(/detected_at/);
    const { rowCount } = await pool().query(`SELECT 1 FROM feed_items WHERE user_id = $1 AND dedupe_key = 'x:40'`, [userId]);
    expect(rowCount).toBe(0);
  });

  it('does not touch the clock for an empty batch', async () => {
    const { rows: before } = await pool().query('SELECT last FROM feed_clock');
    await transaction(pool(), (client) => insertFeedItems(client, []));
    const { rows: after } = await pool().query('SELECT last FROM feed_clock');
    expect(after).toEqual(before);
  });
});

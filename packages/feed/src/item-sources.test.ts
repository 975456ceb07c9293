import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAccount } from '@hashwatch/accounts';
import { migrate, seedPlans, transaction } from '@hashwatch/db';
import { createTestDatabase, useTestEnvironment } from '@hashwatch/testing';
import { insertFeedItems } from './insert-feed-items';
import { hashtagPost } from './test-support/hashtag-post';

/**
 * feed_item_sources (prisma/migrations/20261125190000_feed_item_sources): one row per feed item and source, the
 * index filtered pages walk, kept by triggers on feed_items for every writer.
 */
describe('feed_item_sources', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  let userId: string;
  let otherId: string;

  beforeAll(async () => {
    const prisma = env.database.db.prisma;
    ({ accountId: userId } = await createAccount(prisma, { email: 'sources@example.com', planId: 'starter' }));
    ({ accountId: otherId } = await createAccount(prisma, { email: 'sources-other@example.com', planId: 'starter' }));
  });

  /** The item's rows, as `source@detected_at` (and `/type` unless a hashtag post), sorted; another account's prefixed. */
  async function rowsOf(itemId: string): Promise<string[]> {
    const { rows } = await pool().query<{ user_id: string; source: string; at: string; type: string }>(
      `SELECT user_id, source, to_char(detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at, type
         FROM feed_item_sources WHERE item_id = $1 ORDER BY source`,
      [itemId],
    );
    return rows.map((row) => `${row.user_id === userId ? '' : `${row.user_id}:`}${row.source}@${row.at}${row.type === 'hashtag' ? '' : `/${row.type}`}`);
  }

  async function detectedAt(itemId: string): Promise<string> {
    const { rows } = await pool().query<{ at: string }>(
      `SELECT to_char(detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at FROM feed_items WHERE id = $1`,
      [itemId],
    );
    return rows[0]?.at as string;
  }

  it('holds one row per source of every stored item, a repeated source once, and none for a skipped duplicate', async () => {
    const { inserted } = await transaction(pool(), (client) =>
      insertFeedItems(client, [
        hashtagPost(userId, 1, { sources: ['#btc', '#ETH', '@Alice', '#btc'] }),
        hashtagPost(userId, 2),
        hashtagPost(userId, 3, { type: 'engagement', dedupeKey: 'e:3:like:9', parentId: 'post_parent', kind: 'like', sources: [] }),
        hashtagPost(userId, 4, { type: 'engagement', dedupeKey: 'e:4:like:9', parentId: 'post_parent', kind: 'like', sources: ['#btc'] }),
      ]),
    );
    const [first, second, bare, engagement] = inserted.map((item) => item.id) as [string, string, string, string];
    const at = await detectedAt(first);
    expect(await rowsOf(first)).toEqual([`#btc@${at}`, `#eth@${at}`, `@alice@${at}`]);
    expect(await rowsOf(second)).toEqual([`#btc@${at}`]);
    expect(await rowsOf(bare)).toEqual([]);
    expect(await rowsOf(engagement)).toEqual([`#btc@${at}/engagement`]);

    // The same post again for this account: the insert skips it, and the trigger sees only the rows stored.
    const again = await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, 2, { sources: ['#doge'] })]));
    expect(again.inserted).toEqual([]);
    const { rows } = await pool().query<{ n: number }>(`SELECT count(*)::int AS n FROM feed_item_sources WHERE source = '#doge'`);
    expect(rows[0]?.n).toBe(0);
  });

  it('follows a source added later (the scanner merging a match), a move in time, a new type and a new account', async () => {
    const { inserted } = await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, 10)]));
    const id = inserted[0]?.id as string;
    const at = await detectedAt(id);
    await pool().query(`UPDATE feed_items SET sources = sources || '{@bob}', account = 'bob' WHERE id = $1`, [id]);
    expect(await rowsOf(id)).toEqual([`#btc@${at}`, `@bob@${at}`]);

    await pool().query(`UPDATE feed_items SET sources = '{@bob}' WHERE id = $1`, [id]);
    expect(await rowsOf(id)).toEqual([`@bob@${at}`]);

    await pool().query(`UPDATE feed_items SET detected_at = '2026-01-02T03:04:05.678Z' WHERE id = $1`, [id]);
    expect(await rowsOf(id)).toEqual(['@bob@2026-01-02T03:04:05.678000']);

    await pool().query(`UPDATE feed_items SET type = 'account' WHERE id = $1`, [id]);
    expect(await rowsOf(id)).toEqual(['@bob@2026-01-02T03:04:05.678000/account']);

    await pool().query('UPDATE feed_items SET user_id = $2 WHERE id = $1', [id, otherId]);
    expect(await rowsOf(id)).toEqual([`${otherId}:@bob@2026-01-02T03:04:05.678000/account`]);
  });

  it('is not touched by an engagement refresh, which writes none of its columns', async () => {
    const { inserted } = await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, 20, { engagementTracked: true })]));
    const id = inserted[0]?.id as string;
    // Rows removed by hand would come back if the update trigger ran for these columns.
    await pool().query('DELETE FROM feed_item_sources WHERE item_id = $1', [id]);
    await pool().query(
      `UPDATE feed_items SET like_count = 5, likers = '{@bob}', engagement_updated_at = now(), track_likes = false WHERE id = $1`,
      [id],
    );
    expect(await rowsOf(id)).toEqual([]);
    // An update that writes the columns without changing them does not rewrite the rows either.
    await pool().query('UPDATE feed_items SET sources = sources, detected_at = detected_at WHERE id = $1', [id]);
    expect(await rowsOf(id)).toEqual([]);
  });

  it('gives a null element of sources no row, and stores the item anyway', async () => {
    const { inserted } = await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, 40)]));
    const id = inserted[0]?.id as string;
    const at = await detectedAt(id);
    await pool().query(`UPDATE feed_items SET sources = sources || ARRAY[NULL::text, '@carol'] WHERE id = $1`, [id]);
    expect(await rowsOf(id)).toEqual([`#btc@${at}`, `@carol@${at}`]);
  });

  it('is filled by its migration for the items stored before it', async () => {
    // The migrations up to the one before feed_item_sources.
    const earlier = mkdtempSync(path.join(tmpdir(), 'hw-migrations-'));
    cpSync(path.resolve(__dirname, '../../../prisma/migrations'), path.join(earlier, 'migrations'), { recursive: true });
    for (const entry of readdirSync(path.join(earlier, 'migrations'))) {
      if (entry >= '20261125190000') rmSync(path.join(earlier, 'migrations', entry), { recursive: true, force: true });
    }
    const { db, drop } = await createTestDatabase({ empty: true });
    try {
      await migrate(db.pool, earlier);
      await seedPlans(db.pool);
      // In SQL: the Prisma client knows the latest schema's columns, which this database does not have yet.
      const accountId = 'usr_before';
      await db.pool.query(
        `INSERT INTO users (id, email, plan_id, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit,
                            scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute, subscription_status,
                            current_period_start, current_period_end)
         SELECT $1, 'before@example.com', id, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit,
                scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute, 'active', now(), now() + interval '30 days'
           FROM plans WHERE id = 'starter'`,
        [accountId],
      );
      // As the feed writer of that time stored them (today's writes columns added since).
      const inserted = [
        { id: 'post_before1', n: 1, sources: ['#btc', '@alice'] },
        { id: 'post_before2', n: 2, sources: ['#eth'] },
      ];
      for (const { id, n, sources } of inserted) {
        await db.pool.query(
          `INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, sources, x_post_id, author, author_name, text, url, posted_at, detected_at)
           VALUES ($1, $2, $3, 'hashtag', 'btc', $4, $5, '@a', 'A', 'post', 'https://x.com/a/status/1', now(), now())`,
          [id, accountId, `x:${n}`, sources, String(n)],
        );
      }
      expect((await migrate(db.pool)).applied).toContain('20261125190000_feed_item_sources');
      const { rows } = await db.pool.query<{ source: string; item_id: string; same_time: boolean; type: string }>(
        `SELECT s.source, s.item_id, s.detected_at = f.detected_at AS same_time, s.type::text AS type
           FROM feed_item_sources s JOIN feed_items f ON f.id = s.item_id WHERE s.user_id = $1 ORDER BY s.source`,
        [accountId],
      );
      const [first, second] = inserted.map((item) => item.id) as [string, string];
      expect(rows).toEqual([
        { source: '#btc', item_id: first, same_time: true, type: 'hashtag' },
        { source: '#eth', item_id: second, same_time: true, type: 'hashtag' },
        { source: '@alice', item_id: first, same_time: true, type: 'hashtag' },
      ]);
      const index = await db.pool.query(`SELECT 1 FROM pg_indexes WHERE indexname = 'feed_items_sources_idx'`);
      expect(index.rows).toHaveLength(0);
    } finally {
      await drop();
      rmSync(earlier, { recursive: true, force: true });
    }
  });

  it('goes with its account', async () => {
    const prisma = env.database.db.prisma;
    const { accountId } = await createAccount(prisma, { email: 'sources-gone@example.com', planId: 'starter' });
    const { inserted } = await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(accountId, 30), hashtagPost(accountId, 31)]));
    expect(inserted).toHaveLength(2);
    await pool().query('DELETE FROM users WHERE id = $1', [accountId]);
    const { rows } = await pool().query<{ n: number }>('SELECT count(*)::int AS n FROM feed_item_sources WHERE user_id = $1', [accountId]);
    expect(rows[0]?.n).toBe(0);
  });
});

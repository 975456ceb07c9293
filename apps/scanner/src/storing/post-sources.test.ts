import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eraseSource } from '@hashwatch/accounts';
import { migrate, seedPlans, transaction } from '@hashwatch/db';
import { createTestDatabase } from '@hashwatch/testing';
import type { XPost } from '@hashwatch/x-api';
import { sourceKey, type Source } from '../sources/source';
import { syncSources } from '../sources/sync-sources';
import { useScannerFixture } from '../test-support/scanner-fixture';
import { loadSubscriptions, storePack } from './store-pack';

let nextId = 1_990_000_000_000_200_000n;

/** A post X would return carrying every tag of `tags`, published now. */
function postWithTags(...tags: string[]): XPost {
  nextId += 1n;
  const text = `news ${tags.map((tag) => `#${tag}`).join(' ')}`;
  let at = 5;
  const hashtags = tags.map((tag) => {
    const entity = { start: at, end: at + 1 + tag.length, tag };
    at = entity.end + 1;
    return entity;
  });
  return {
    id: String(nextId), rootId: String(nextId), text, authorId: '7', author: { id: '7', username: 'poster', name: 'Poster', verified: false, followersCount: 10 }, createdAt: new Date().toISOString(),
    lang: 'en', conversationId: String(nextId), inReplyToUserId: null, referencedPosts: [], isRetweet: false, isReply: false, isQuote: false,
    hashtags, cashtags: [], mentions: [], urls: [], media: [], quoted: null, metrics: null, editHistoryPostIds: [String(nextId)], withheldIn: [],
  };
}

const tagSource = (tag: string): Source => ({ key: sourceKey('tag', tag), kind: 'tag', name: tag, sinceId: null, notBefore: new Date(0), intervalSeconds: 60, failures: 0 });

/**
 * x_post_sources (prisma/migrations/20261129010000_post_sources): the sources of the posts no feed item holds, which
 * is how an erasure of a source finds the posts only it needed, by index.
 */
describe('x_post_sources', () => {
  const fx = useScannerFixture();
  const pool = () => fx.pool();
  const linksOf = async (postIds: string[]) =>
    (await pool().query<{ source_key: string; x_post_id: string }>('SELECT source_key, x_post_id FROM x_post_sources WHERE x_post_id = ANY($1::text[]) ORDER BY 2, 1', [postIds])).rows;

  it('is filled by the store path for the posts a batch leaves in no feed, and only for them', async () => {
    const user = await fx.account({ alertsLimit: 1 });
    await fx.track(user, 'psalpha', { createdAt: new Date(Date.now() - 60_000) });
    await fx.track(user, 'psbeta', { createdAt: new Date(Date.now() - 60_000) });
    const sources = [tagSource('psalpha'), tagSource('psbeta')];
    const stored = postWithTags('psalpha', 'psbeta');
    const overQuota = postWithTags('psalpha', 'psbeta');
    const alsoOver = postWithTags('psbeta');
    const result = await transaction(pool(), async (client) =>
      storePack(client, { sources, claimId: 1, posts: [stored, overQuota, alsoOver], postsRead: 3, requests: 1, subscriptions: await loadSubscriptions(client, sources) }),
    );
    expect(result.inserted.map((item) => item.xPostId)).toEqual([stored.id]);
    expect(result.droppedForQuota).toBe(2);
    expect(await linksOf([stored.id, overQuota.id, alsoOver.id])).toEqual([
      { source_key: 'tag:psalpha', x_post_id: overQuota.id },
      { source_key: 'tag:psbeta', x_post_id: overQuota.id },
      { source_key: 'tag:psbeta', x_post_id: alsoOver.id },
    ]);

    // Deleting a post deletes its rows (trigger x_posts_sources_delete), whoever deletes it.
    await pool().query('DELETE FROM x_posts WHERE id = $1', [overQuota.id]);
    expect(await linksOf([overQuota.id, alsoOver.id])).toEqual([{ source_key: 'tag:psbeta', x_post_id: alsoOver.id }]);
  });

  it('is filled by the migration for the posts stored before it that no feed holds', async () => {
    const earlier = mkdtempSync(path.join(tmpdir(), 'hw-migrations-'));
    cpSync(path.resolve(__dirname, '../../../../prisma/migrations'), path.join(earlier, 'migrations'), { recursive: true });
    for (const entry of readdirSync(path.join(earlier, 'migrations'))) {
      if (entry >= '20261129010000') rmSync(path.join(earlier, 'migrations', entry), { recursive: true, force: true });
    }
    const { db, drop } = await createTestDatabase({ empty: true });
    try {
      await migrate(db.pool, earlier);
      await seedPlans(db.pool);
      // In SQL: the Prisma client knows the latest schema's columns, which this database does not have yet.
      await db.pool.query(
        `INSERT INTO users (id, email, plan_id, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit,
                            scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute, subscription_status,
                            current_period_start, current_period_end)
         SELECT 'usr_before', 'before@example.com', id, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit,
                scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute, 'active', now(), now() + interval '30 days'
           FROM plans WHERE id = 'starter'`,
      );
      await db.pool.query(`INSERT INTO tracks (id, user_id, hashtag, hashtag_norm) VALUES ('trk_before', 'usr_before', 'BfTag', 'bftag')`);
      await db.pool.query(`INSERT INTO account_tracks (id, user_id, username, username_norm) VALUES ('act_before', 'usr_before', 'BfUser', 'bfuser')`);
      const posts = [
        ['1990000000000300001', 'someone', 'over the quota #BfTag'],
        ['1990000000000300002', 'someone', 'a cashtag $bftag'],
        ['1990000000000300003', 'someone', 'stored #bftag'],
        ['1990000000000300004', 'BfUser', 'by the account, #bftag too'],
        ['1990000000000300005', 'someone', 'nothing tracked #other'],
      ];
      for (const [id, author, text] of posts) {
        await db.pool.query(`INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at) VALUES ($1, '7', $2, 'Someone', $3, now())`, [id, author, text]);
      }
      await db.pool.query(
        `INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, sources, x_post_id, author, author_name, text, url, posted_at, detected_at)
         VALUES ('post_before3', 'usr_before', 'x:1990000000000300003', 'hashtag', 'bftag', '{#bftag}', '1990000000000300003', '@someone', 'Someone', 'stored #bftag',
                 'https://x.com/i/status/1990000000000300003', now(), now())`,
      );
      expect((await migrate(db.pool)).applied).toContain('20261129010000_post_sources');
      const { rows } = await db.pool.query('SELECT source_key, x_post_id FROM x_post_sources ORDER BY 2, 1');
      expect(rows).toEqual([
        { source_key: 'tag:bftag', x_post_id: '1990000000000300001' },
        { source_key: 'tag:bftag', x_post_id: '1990000000000300002' },
        { source_key: 'tag:bftag', x_post_id: '1990000000000300004' },
        { source_key: 'user:bfuser', x_post_id: '1990000000000300004' },
      ]);
    } finally {
      await drop();
      rmSync(earlier, { recursive: true, force: true });
    }
  });

  it('lets the source sync run while one account deletes many sources at once, over many stored posts', async () => {
    // Posts of no tracked source: an erasure that read every post's text under one global lock took a while per source.
    await pool().query(
      `INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at)
       SELECT (1990000000100000000 + g)::text, '7', 'writer' || (g % 100), 'Writer', 'news ' || g || ' about #crowd' || (g % 500), now()
         FROM generate_series(1, 300000) AS g`,
    );
    await pool().query('ANALYZE x_posts');
    const owner = await fx.account({ plan: 'business' });
    const tags = Array.from({ length: 25 }, (_, i) => `manydel${i}`);
    const trackIds: string[] = [];
    for (const tag of tags) trackIds.push(await fx.track(owner, tag, { createdAt: new Date(Date.now() - 60_000) }));
    // Matched for the owner's first tag and stored in no feed: the erasure of that tag removes it.
    const unstored = postWithTags('manydel0');
    await transaction(pool(), async (client) => {
      await client.query(`INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at) VALUES ($1, '7', 'poster', 'Poster', $2, now())`, [unstored.id, unstored.text]);
      await client.query(`INSERT INTO x_post_sources (source_key, x_post_id) VALUES ('tag:manydel0', $1)`, [unstored.id]);
    });
    expect((await syncSources(pool())).upserted).toBeGreaterThanOrEqual(25);
    const other = await fx.account();

    const started = Date.now();
    const deletions = Promise.all(trackIds.map((id) => eraseSource(pool(), 'tracks', owner, id).then(() => Date.now() - started)));
    // Another tenant's new track, synced while the deletions run: its cursor is written, nothing waits.
    await new Promise((resolve) => setTimeout(resolve, 30));
    await fx.track(other, 'othertenant');
    const syncStarted = Date.now();
    const sync = await syncSources(pool());
    const syncMs = Date.now() - syncStarted;
    const deletedAfter = await deletions;

    expect(sync).toMatchObject({ ran: true });
    expect(syncMs).toBeLessThan(1_000);
    expect(Math.max(...deletedAfter)).toBeLessThan(3_000);
    const { rows: cursors } = await pool().query<{ source_key: string }>(`SELECT source_key FROM source_cursors WHERE source_key LIKE 'tag:manydel%' OR source_key = 'tag:othertenant'`);
    expect(cursors.map((row) => row.source_key)).toEqual(['tag:othertenant']);
    expect((await pool().query('SELECT 1 FROM x_posts WHERE id = $1', [unstored.id])).rows).toEqual([]);
  });
});

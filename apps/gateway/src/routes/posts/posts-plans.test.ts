import { createDatabase } from '@hashwatch/db';
import { generateSecretsKey, hashApiKey } from '@hashwatch/secrets';
import { feedFixture } from '../../test-support/feed-fixture';
import { useGateway } from '../../test-support/gateway-harness';
import { postCursor } from './post-cursor';
import { listPosts, readPageWithKey } from './posts.service';

describe('GET /v1/posts query plans', () => {
  const gw = useGateway();
  const { item, store } = feedFixture(gw);

  it('plans the default page, alone and with the key lookup, once per connection and then reuses the generic plan', async () => {
    const { accountId, apiKey } = await gw.account();
    // Enough items that a plan for "LIMIT $n" (PostgreSQL assumes a tenth of the rows) costs more than one
    // for the page itself, as on a real feed.
    await store(Array.from({ length: 5_000 }, () => item(accountId)));
    await gw.env.database.db.pool.query('ANALYZE feed_items');
    const pool = createDatabase(gw.env.database.url, { max: 1 });
    try {
      const cursors = postCursor(generateSecretsKey());
      for (let run = 0; run < 12; run += 1) {
        await listPosts(pool.pool, cursors, accountId, { limit: 20 });
        const keyed = await readPageWithKey(pool.pool, cursors, hashApiKey(apiKey), { limit: 20 }, null);
        expect(JSON.parse(keyed?.body().text ?? '{}').data).toHaveLength(20);
      }
      const { rows } = await pool.pool.query<{ name: string; generic_plans: string; custom_plans: string }>(
        `SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'posts-%' ORDER BY name`,
      );
      expect(rows.map((row) => row.name)).toEqual(['posts-key-page-20-', 'posts-page-20-']);
      for (const row of rows) {
        // PostgreSQL tries 5 custom plans before it compares them with the generic one.
        expect(Number(row.custom_plans)).toBeLessThanOrEqual(5);
        expect(Number(row.generic_plans)).toBeGreaterThanOrEqual(7);
      }
    } finally {
      await pool.close();
    }
  });

  it('keeps one generic plan for filtered pages and polls, each walking feed_item_sources by keyset for a common source and a rare one alike', async () => {
    const { accountId, apiKey } = await gw.account();
    // #btc on every item, #rare on one in 500, @alice on every other one.
    await store(
      Array.from({ length: 5_000 }, (_, n) =>
        item(accountId, { sources: ['#btc', ...(n % 500 === 0 ? ['#rare'] : []), ...(n % 2 === 0 ? ['@alice'] : [])] }),
      ),
    );
    await gw.env.database.db.pool.query('ANALYZE feed_items; ANALYZE feed_item_sources');
    const pool = createDatabase(gw.env.database.url, { max: 1 });
    try {
      const cursors = postCursor(generateSecretsKey());
      // A poll: `since` a few items before the newest, past the last value ANALYZE sampled.
      const { rows: newest } = await pool.pool.query<{ detected_at: Date }>(
        'SELECT detected_at FROM feed_items WHERE user_id = $1 ORDER BY detected_at DESC, id DESC OFFSET 4 LIMIT 1',
        [accountId],
      );
      const since = new Date((newest[0]?.detected_at as Date).getTime() - 1);
      const queries = [{ hashtag: 'btc' }, { hashtag: 'rare' }, { account: 'alice' }, { hashtag: 'rare', account: 'alice' }, { since }, { account: 'alice', type: 'hashtag' as const }];
      for (let run = 0; run < 12; run += 1) {
        for (const filter of queries) {
          const page = await listPosts(pool.pool, cursors, accountId, { limit: 20, ...filter });
          const keyed = await readPageWithKey(pool.pool, cursors, hashApiKey(apiKey), { limit: 20, ...filter }, null);
          expect(keyed?.body().text).toBe(page.text);
        }
      }
      const { rows } = await pool.pool.query<{ name: string; generic_plans: string; custom_plans: string }>(
        `SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'posts-%' ORDER BY name`,
      );
      expect(rows.map((row) => row.name)).toEqual([
        'posts-key-page-20-a', 'posts-key-page-20-h', 'posts-key-page-20-ha', 'posts-key-page-20-s', 'posts-key-page-20-ta',
        'posts-page-20-a', 'posts-page-20-h', 'posts-page-20-ha', 'posts-page-20-s', 'posts-page-20-ta',
      ]);
      // The feed's route runs the keyed statements. PostgreSQL settles on their generic plan (the two hashtag
      // values share one statement: 24 executions).
      for (const row of rows.filter(({ name }) => name.startsWith('posts-key-page-'))) {
        expect({ name: row.name, custom: Number(row.custom_plans) <= 5, generic: Number(row.generic_plans) >= 7 }).toEqual({ name: row.name, custom: true, generic: true });
      }
      // Whatever plan each statement gets walks the source rows by their primary key, newest first, for any value;
      // a sort or a scan of the whole feed would mean the plan depends on how common the value is.
      const keyHash = `'\\x${Buffer.from(hashApiKey(apiKey)).toString('hex')}'::bytea`;
      for (const execute of [
        `"posts-key-page-20-h"(${keyHash}, '#rare')`,
        `"posts-key-page-20-h"(${keyHash}, '#btc')`,
        `"posts-page-20-h"('${accountId}', '#rare')`,
        `"posts-page-20-a"('${accountId}', '@alice')`,
        // Both filters: the account's rows walked, the hashtag looked up by key beside each.
        `"posts-key-page-20-ha"(${keyHash}, '@alice', '#rare')`,
      ]) {
        for (const mode of ['force_generic_plan', 'force_custom_plan']) {
          await pool.pool.query(`SET plan_cache_mode = ${mode}`);
          const plan = await pool.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) EXECUTE ${execute}`);
          const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
          expect(text).toMatch(/Index Only Scan Backward using feed_item_sources_pkey on feed_item_sources s/);
          expect(text).not.toMatch(/Sort|Seq Scan|Bitmap/);
        }
      }
      await pool.pool.query('RESET plan_cache_mode');
    } finally {
      await pool.close();
    }
  });
});

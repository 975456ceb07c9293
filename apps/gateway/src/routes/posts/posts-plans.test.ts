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
});

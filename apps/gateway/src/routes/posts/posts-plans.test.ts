import { createDatabase } from '@hashwatch/db';
import { generateSecretsKey } from '@hashwatch/secrets';
import { feedFixture } from '../../test-support/feed-fixture';
import { useGateway } from '../../test-support/gateway-harness';
import { postCursor } from './post-cursor';
import { listPosts } from './posts.service';

describe('GET /v1/posts query plans', () => {
  const gw = useGateway();
  const { item, store } = feedFixture(gw);

  it('plans the default page once per connection and then reuses the generic plan', async () => {
    const { accountId } = await gw.account();
    // Enough items that a plan for "LIMIT $n" (PostgreSQL assumes a tenth of the rows) costs more than one
    // for the page itself, as on a real feed.
    await store(Array.from({ length: 5_000 }, () => item(accountId)));
    await gw.env.database.db.pool.query('ANALYZE feed_items');
    const pool = createDatabase(gw.env.database.url, { max: 1 });
    try {
      const cursors = postCursor(generateSecretsKey());
      for (let run = 0; run < 12; run += 1) await listPosts(pool.pool, cursors, accountId, { limit: 20 });
      const { rows } = await pool.pool.query<{ generic_plans: string; custom_plans: string }>(
        `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'posts-page-%'`,
      );
      expect(rows).toHaveLength(1);
      // PostgreSQL tries 5 custom plans before it compares them with the generic one.
      expect(Number(rows[0]?.custom_plans)).toBeLessThanOrEqual(5);
      expect(Number(rows[0]?.generic_plans)).toBeGreaterThanOrEqual(7);
    } finally {
      await pool.close();
    }
  });
});

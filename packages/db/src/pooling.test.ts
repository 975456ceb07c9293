import { useTestEnvironment } from '@hashwatch/testing';
import { isTransactionPooled, openDatabases, statementName } from './pooling';

describe('DATABASE_URL through a transaction pooler', () => {
  const env = useTestEnvironment();

  it('counts as pooled only when a different direct URL is set', () => {
    expect(isTransactionPooled({ url: 'postgresql://a/db' })).toBe(false);
    expect(isTransactionPooled({ url: 'postgresql://a/db', directUrl: 'postgresql://a/db' })).toBe(false);
    expect(isTransactionPooled({ url: 'postgresql://pooler:6432/db', directUrl: 'postgresql://a:5432/db' })).toBe(true);
  });

  it('names statements on a direct database, and neither the pool nor its clients through a pooler', async () => {
    const direct = openDatabases({ url: env.database.url });
    // Here "the pooler" is the same server on another spelling of its URL: what matters is the configuration.
    const pooledUrl = env.database.url.replace('127.0.0.1', 'localhost');
    const pooled = openDatabases({ url: pooledUrl, directUrl: env.database.url }, { directMax: 1 });
    try {
      expect(direct.direct).toBe(direct.db.pool);
      expect(statementName(direct.db.pool, 'hw-x')).toEqual({ name: 'hw-x' });
      expect(pooled.direct).not.toBe(pooled.db.pool);
      expect(statementName(pooled.db.pool, 'hw-x')).toEqual({});
      const client = await pooled.db.pool.connect();
      try {
        expect(statementName(client, 'hw-x')).toEqual({});
        const { rows } = await client.query<{ v: number }>({ ...statementName(client, 'hw-x'), text: 'SELECT $1::int AS v', values: [7] });
        expect(rows[0]?.v).toBe(7);
      } finally {
        client.release();
      }
      // The direct pool is PostgreSQL itself: its statements keep their names.
      expect(statementName(pooled.direct, 'hw-x')).toEqual({ name: 'hw-x' });
      expect((await pooled.direct.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await Promise.all([direct.close(), pooled.close()]);
    }
  });
});

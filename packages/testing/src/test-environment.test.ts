import { Redis } from 'ioredis';
import pg from 'pg';
import { adminUrl } from './database-urls';
import { deletePrefixKeys } from './queue-prefix';
import { useTestEnvironment } from './test-environment';

describe('useTestEnvironment', () => {
  const env = useTestEnvironment();

  it('gives the file a migrated database of its own with the plans seeded', async () => {
    const plans = await env.database.db.prisma.plan.findMany({ orderBy: { hashtagsLimit: 'asc' } });
    expect(plans.map((plan) => plan.id)).toEqual(['starter', 'pro', 'business']);
    expect(env.database.name).toMatch(/^hw_test_[0-9a-f]{8}_[0-9a-f]{8}$/);
  });

  it('gives the file a queue prefix of its own', () => {
    expect(env.queuePrefix).toMatch(/^hwt[0-9a-f]{10}$/);
  });
});

describe('deletePrefixKeys', () => {
  it('deletes the keys under one prefix and leaves another prefix alone', async () => {
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      await redis.set('hwtmine:a', '1');
      await redis.set('hwtmine:b', '1');
      await redis.set('hwtother:a', '1');
      expect(await deletePrefixKeys(redis, 'hwtmine')).toBe(2);
      expect(await redis.exists('hwtother:a')).toBe(1);
      await redis.del('hwtother:a');
    } finally {
      redis.disconnect();
    }
  });
});

describe('createTestDatabase cleanup', () => {
  it('the template of this run exists while tests run', async () => {
    const client = new pg.Client({ connectionString: adminUrl() });
    await client.connect();
    try {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [process.env.HW_TEST_TEMPLATE_DB]);
      expect(rowCount).toBe(1);
    } finally {
      await client.end();
    }
  });
});

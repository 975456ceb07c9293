import { useTestEnvironment } from '@hashwatch/testing';
import { isPgError, PgErrorCode, transaction } from './transaction';

describe('transaction', () => {
  const env = useTestEnvironment();

  it('commits what the work did', async () => {
    await transaction(env.database.db.pool, (client) => client.query(`INSERT INTO plans (id, name, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit, scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute) VALUES ('t1','T',1,1,1,1,1,1,1,1)`));
    const { rowCount } = await env.database.db.pool.query(`SELECT 1 FROM plans WHERE id = 't1'`);
    expect(rowCount).toBe(1);
  });

  it('rolls everything back when the work fails, and reports the PostgreSQL error code', async () => {
    let caught: unknown;
    try {
      await transaction(env.database.db.pool, async (client) => {
        await client.query(`INSERT INTO plans (id, name, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit, scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute) VALUES ('t2','T',1,1,1,1,1,1,1,1)`);
        await client.query(`INSERT INTO plans (id, name, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit, scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute) VALUES ('t2','T',1,1,1,1,1,1,1,1)`);
      });
    } catch (error) {
      caught = error;
    }
    expect(isPgError(caught, PgErrorCode.uniqueViolation)).toBe(true);
    const { rowCount } = await env.database.db.pool.query(`SELECT 1 FROM plans WHERE id = 't2'`);
    expect(rowCount).toBe(0);
  });
});

import { setTimeout as sleep } from 'node:timers/promises';
import { createAccount } from '@hashwatch/accounts';
import { transaction } from '@hashwatch/db';
import { useTestEnvironment } from '@hashwatch/testing';
import { lockAlertQuota } from './alert-quota';

describe('the alert quota', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  let counter = 0;

  async function account(alertsLimit: number): Promise<string> {
    counter += 1;
    const { accountId } = await createAccount(env.database.db.prisma, { email: `quota${counter}@example.com`, planId: 'starter' });
    await pool().query('UPDATE users SET alerts_limit = $2 WHERE id = $1', [accountId, alertsLimit]);
    return accountId;
  }

  const used = async (userId: string) =>
    (await pool().query<{ alerts_used: number; reads: string }>('SELECT alerts_used, upstream_posts_read::text AS reads FROM usage_periods WHERE user_id = $1', [userId])).rows[0];

  it('creates the period row on first use, hands out what is left and counts only what was stored', async () => {
    const userId = await account(3);
    await transaction(pool(), async (client) => {
      const { quota } = await lockAlertQuota(client, [userId, userId]);
      expect(quota.accounts).toEqual([userId]);
      expect(quota.remaining(userId)).toBe(3);
      expect([quota.take(userId), quota.take(userId), quota.take(userId), quota.take(userId)]).toEqual([true, true, true, false]);
      expect(quota.remaining(userId)).toBe(0);
      // Two of the three taken were stored (an item already there is not inserted again).
      await quota.record(client, new Map([[userId, 2]]));
    });
    expect(await used(userId)).toEqual({ alerts_used: 2, reads: '0.000000' });
    await transaction(pool(), async (client) => {
      const { quota } = await lockAlertQuota(client, [userId]);
      expect(quota.remaining(userId)).toBe(1);
    });
  });

  it('adds each account its share of upstream reads, stored or not, and nothing when there is nothing to add', async () => {
    const [a, b] = [await account(10), await account(10)];
    await transaction(pool(), async (client) => {
      const { quota } = await lockAlertQuota(client, [b, a]);
      expect(quota.recordStatement(new Map())).toBeUndefined();
      expect(quota.recordStatement(new Map([[a, 0]]))).toBeUndefined();
      await quota.record(client, new Map([[a, 1]]), 2.5);
    });
    expect(await used(a)).toEqual({ alerts_used: 1, reads: '2.500000' });
    expect(await used(b)).toEqual({ alerts_used: 0, reads: '2.500000' });
  });

  it('adds per-source shares beside each account\'s reads in one statement, summing them over calls, and skips unlocked accounts', async () => {
    const [a, b] = [await account(10), await account(10)];
    const bySource = (reads: string) => (rows: [string, string][]) => rows.map(([userId, source]) => ({ userId, source, reads, requests: '0.250000' }));
    const shares = {
      readsByAccount: new Map([[a, '3.000000'], [b, '1.500000']]),
      bySource: [...bySource('1.500000')([[a, '#gold'], [a, '@hana'], [b, '#gold']]), { userId: 'usr_unlocked', source: '#gold', reads: '9', requests: '9' }],
    };
    for (let round = 0; round < 2; round += 1) {
      await transaction(pool(), async (client) => {
        const { quota } = await lockAlertQuota(client, [a, b]);
        await quota.record(client, new Map([[b, 1]]), shares);
      });
    }
    expect(await used(a)).toEqual({ alerts_used: 0, reads: '6.000000' });
    expect(await used(b)).toEqual({ alerts_used: 2, reads: '3.000000' });
    const { rows } = await pool().query<{ user_id: string; source: string; reads: string; requests: string; same_period: boolean }>(
      `SELECT s.user_id, s.source, s.reads::text, s.requests::text, s.period_start = u.current_period_start AS same_period
         FROM upstream_usage_by_source s JOIN users u ON u.id = s.user_id WHERE s.user_id = ANY($1::text[]) ORDER BY s.user_id = $2 DESC, s.source`,
      [[a, b, 'usr_unlocked'], a],
    );
    expect(rows).toEqual([
      { user_id: a, source: '#gold', reads: '3.000000', requests: '0.500000', same_period: true },
      { user_id: a, source: '@hana', reads: '3.000000', requests: '0.500000', same_period: true },
      { user_id: b, source: '#gold', reads: '3.000000', requests: '0.500000', same_period: true },
    ]);
  });

  it('answers an account that has none as having no quota', async () => {
    await transaction(pool(), async (client) => {
      const { quota } = await lockAlertQuota(client, ['usr_missing']);
      expect(quota.remaining('usr_missing')).toBe(0);
      expect(quota.take('usr_missing')).toBe(false);
    });
  });

  it('runs a statement alongside the lock in the same round trip and answers its row', async () => {
    const userId = await account(5);
    await transaction(pool(), async (client) => {
      await lockAlertQuota(client, [userId]);
    });
    const answer = await transaction(pool(), async (client) => {
      const { quota, alongside } = await lockAlertQuota<{ doubled: number[] }>(client, [userId], {
        ctes: 'numbers AS (SELECT unnest($2::int[]) * 2 AS n)',
        select: 'ARRAY(SELECT n FROM numbers ORDER BY n) AS doubled',
        values: [[3, 1]],
      });
      expect(quota.remaining(userId)).toBe(5);
      return alongside;
    });
    expect(answer).toEqual({ doubled: [2, 6] });
  });

  it('holds a second writer of the same account until the first commits, so the quota is never overspent', async () => {
    const userId = await account(1);
    const order: string[] = [];
    const first = transaction(pool(), async (client) => {
      const { quota } = await lockAlertQuota(client, [userId]);
      order.push(`first took ${quota.take(userId)}`);
      await sleep(200);
      await quota.record(client, new Map([[userId, 1]]));
    });
    await sleep(50);
    const second = transaction(pool(), async (client) => {
      const { quota } = await lockAlertQuota(client, [userId]);
      order.push(`second took ${quota.take(userId)}`);
    });
    await Promise.all([first, second]);
    expect(order).toEqual(['first took true', 'second took false']);
  });
});

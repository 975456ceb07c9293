import { transaction } from '@hashwatch/db';
import { lockAlertQuota } from '@hashwatch/feed';
import { useTestEnvironment } from '@hashwatch/testing';
import { newAccount } from '../test-support/notifier-fixture';
import { runNoticeChecks } from './notice-checks';

const CHECKS = { failingAfterMs: 3_600_000, disableAfterMs: 86_400_000 };

describe('quota notices resolve', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;

  /** One feed write of `stored` alerts, as the scanner and the engagement poller record them. */
  async function write(userId: string, stored: number): Promise<void> {
    await transaction(pool(), async (client) => {
      const { quota } = await lockAlertQuota(client, [userId]);
      await quota.record(client, new Map([[userId, stored]]));
    });
  }

  async function notices(userId: string) {
    const { rows } = await pool().query<{ kind: string; subject: string; resolved: boolean }>(
      'SELECT kind, subject, resolved_at IS NOT NULL AS resolved FROM notices WHERE user_id = $1 ORDER BY opened_at, kind',
      [userId],
    );
    return rows;
  }

  it('keeps them open within the period, resolves the exhausted one when a plan raises the limit past it, and both when the period resets', async () => {
    const user = await newAccount(env.database);
    await pool().query('UPDATE users SET alerts_limit = 10 WHERE id = $1', [user]);
    await write(user, 8);
    await write(user, 2);
    expect((await runNoticeChecks(pool(), CHECKS)).quotaResolved).toBe(0);
    const [warning, exhausted] = await notices(user);
    expect([warning?.kind, warning?.resolved, exhausted?.kind, exhausted?.resolved]).toEqual(['quota_warning', false, 'quota_exhausted', false]);

    // A larger plan: 10 of 12 is still past 80 % (10 of ceil(9.6)), no longer 100 %.
    await pool().query('UPDATE users SET alerts_limit = 12 WHERE id = $1', [user]);
    expect((await runNoticeChecks(pool(), CHECKS)).quotaResolved).toBe(1);
    expect((await notices(user)).map((row) => [row.kind, row.resolved])).toEqual([
      ['quota_warning', false],
      ['quota_exhausted', true],
    ]);

    // The period resets (a renewal moves current_period_start): the warning resolves, once.
    await pool().query(
      `UPDATE users SET current_period_start = current_period_end, current_period_end = current_period_end + interval '30 days' WHERE id = $1`,
      [user],
    );
    const [first, second] = await Promise.all([runNoticeChecks(pool(), CHECKS), runNoticeChecks(pool(), CHECKS)]);
    expect(first.quotaResolved + second.quotaResolved).toBe(1);
    expect((await notices(user)).every((row) => row.resolved)).toBe(true);

    // The new period has its own notices: crossing 80 % of it opens one more warning, about the new period.
    await write(user, 10);
    const all = await notices(user);
    expect(all).toHaveLength(3);
    expect(all[2]).toMatchObject({ kind: 'quota_warning', resolved: false });
    expect(all[2]?.subject).not.toBe(warning?.subject);
    expect((await runNoticeChecks(pool(), CHECKS)).quotaResolved).toBe(0);
  });
});

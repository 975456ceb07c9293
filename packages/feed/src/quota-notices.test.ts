import { createAccount } from '@hashwatch/accounts';
import { transaction } from '@hashwatch/db';
import { useTestEnvironment } from '@hashwatch/testing';
import { lockAlertQuota } from './alert-quota';

/** The quota notices (CONTRACT 8) opened by the usage update of every feed writer. */
describe('quota notices', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  let counter = 0;

  async function account(alertsLimit: number): Promise<string> {
    counter += 1;
    const { accountId } = await createAccount(env.database.db.prisma, { email: `quota-notice${counter}@example.com`, planId: 'starter' });
    await pool().query('UPDATE users SET alerts_limit = $2 WHERE id = $1', [accountId, alertsLimit]);
    return accountId;
  }

  /** One feed write of `stored` alerts, as a writer records it. */
  async function write(userId: string, stored: number): Promise<void> {
    await transaction(pool(), async (client) => {
      const { quota } = await lockAlertQuota(client, [userId]);
      await quota.record(client, new Map([[userId, stored]]));
    });
  }

  async function notices(userId: string) {
    const { rows } = await pool().query<{ id: string; kind: string; subject: string; message: string; resolved_at: Date | null; source: string | null; channel_id: string | null }>(
      'SELECT id, kind, subject, message, resolved_at, source, channel_id FROM notices WHERE user_id = $1 ORDER BY opened_at, kind',
      [userId],
    );
    return rows;
  }

  async function noticeJobs(ids: string[]) {
    const { rows } = await pool().query<{ job_id: string; payload: unknown }>(
      `SELECT job_id, payload FROM outbox_jobs WHERE name = 'deliver-notice' AND payload->>'noticeId' = ANY($1::text[]) ORDER BY job_id`,
      [ids],
    );
    return rows;
  }

  it('opens quota_warning once when a write crosses 80 % and quota_exhausted once when one reaches 100 %, each with its send', async () => {
    const userId = await account(10);
    await write(userId, 7);
    expect(await notices(userId)).toEqual([]);
    await write(userId, 1);
    const [warning, ...none] = await notices(userId);
    expect(none).toEqual([]);
    expect(warning).toMatchObject({ kind: 'quota_warning', resolved_at: null, source: null, channel_id: null });
    expect(warning?.message).toMatch(/^80 % of this period's alert quota is used: 8 of 10 alerts\. .* resets on \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    const { rows: period } = await pool().query<{ start: Date }>('SELECT current_period_start AS start FROM users WHERE id = $1', [userId]);
    expect(new Date(warning?.subject ?? '').getTime()).toBe(period[0]?.start.getTime());

    await write(userId, 1);
    expect(await notices(userId)).toHaveLength(1);
    await write(userId, 1);
    const all = await notices(userId);
    expect(all.map((notice) => notice.kind)).toEqual(['quota_warning', 'quota_exhausted']);
    expect(all[1]?.message).toMatch(/^The alert quota of this period is used up: 10 of 10 alerts\./);
    expect(all[1]?.subject).toBe(warning?.subject);
    // The notifier sends each opening once: one deliver-notice job each, as @hashwatch/notices writes it.
    expect(await noticeJobs(all.map((notice) => notice.id))).toEqual(
      all.map((notice) => ({ job_id: `notice-${notice.id}-open`, payload: { noticeId: notice.id, state: 'open' } })).sort((a, b) => (a.job_id < b.job_id ? -1 : 1)),
    );
  });

  it('opens both at once when one write crosses both thresholds, and nothing for accounts that cross nothing', async () => {
    const [a, b] = [await account(5), await account(100)];
    await transaction(pool(), async (client) => {
      const { quota } = await lockAlertQuota(client, [a, b]);
      await quota.record(client, new Map([[a, 5], [b, 3]]), 1);
    });
    expect((await notices(a)).map((notice) => notice.kind).sort()).toEqual(['quota_exhausted', 'quota_warning']);
    expect(await notices(b)).toEqual([]);
    // A write of reads alone (nothing stored) crosses nothing and opens nothing again.
    await transaction(pool(), async (client) => {
      const { quota } = await lockAlertQuota(client, [a]);
      await quota.record(client, new Map(), 3);
    });
    expect(await notices(a)).toHaveLength(2);
  });

  it('tells an account again when a larger limit that resolved quota_exhausted is used up within the hour', async () => {
    const userId = await account(10);
    await write(userId, 10);
    const exhausted = (await notices(userId)).find((notice) => notice.kind === 'quota_exhausted');
    expect(exhausted).toMatchObject({ kind: 'quota_exhausted', resolved_at: null });
    // A larger plan: the periodic check resolves the notice (as here), and the account uses the new room at once.
    await pool().query('UPDATE users SET alerts_limit = 12 WHERE id = $1', [userId]);
    await pool().query('UPDATE notices SET resolved_at = now() WHERE id = $1', [exhausted?.id]);
    await write(userId, 2);
    const again = (await notices(userId)).filter((notice) => notice.kind === 'quota_exhausted');
    expect(again).toHaveLength(2);
    expect(again[1]).toMatchObject({ resolved_at: null, message: expect.stringMatching(/12 of 12 alerts/) });
  });

  it('opens nothing more after a rolled-back write: the notice commits with the usage or not at all', async () => {
    const userId = await account(10);
    await expect(
      transaction(pool(), async (client) => {
        const { quota } = await lockAlertQuota(client, [userId]);
        await quota.record(client, new Map([[userId, 10]]));
        throw new Error('the feed insert failed');
      }),
    ).rejects.toThrow('the feed insert failed');
    expect(await notices(userId)).toEqual([]);
    await write(userId, 9);
    expect((await notices(userId)).map((notice) => notice.kind)).toEqual(['quota_warning']);
  });
});

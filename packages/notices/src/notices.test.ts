import { createAccount } from '@hashwatch/accounts';
import { newId, transaction } from '@hashwatch/db';
import { useTestEnvironment } from '@hashwatch/testing';
import { openNotice, raiseNotice, resolveNotice } from './notices';

describe('notices', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;

  async function account(): Promise<string> {
    const { accountId } = await createAccount(env.database.db.prisma, { email: `${newId('usr')}@example.com`, planId: 'pro' });
    return accountId;
  }

  async function outboxJobs(noticeId: string): Promise<string[]> {
    const { rows } = await pool().query<{ job_id: string }>(`SELECT job_id FROM outbox_jobs WHERE name = 'deliver-notice' AND payload->>'noticeId' = $1 ORDER BY id`, [noticeId]);
    return rows.map((row) => row.job_id);
  }

  it('opens one notice per condition and queues its message once, however often it is raised', async () => {
    const userId = await account();
    const condition = { userId, kind: 'source_failing' as const, source: '#btc' };
    const first = await transaction(pool(), (client) => raiseNotice(client, condition, { message: 'X refuses the query for #btc' }));
    const again = await transaction(pool(), (client) => raiseNotice(client, condition, { message: 'X refuses the query for #btc' }));
    expect(first).toMatchObject({ kind: 'source_failing', subject: '#btc', source: '#btc', channelId: null, resolvedAt: null });
    expect(first!.id).toMatch(/^ntc_/);
    expect(again).toBeNull();
    expect(await outboxJobs(first!.id)).toEqual([`notice-${first!.id}-open`]);
    expect((await openNotice(pool(), condition))?.id).toBe(first!.id);
  });

  it('opens one notice when replicas raise the same condition at the same moment', async () => {
    const userId = await account();
    const condition = { userId, kind: 'quota_warning' as const, subject: '2026-11-01T00:00:00.000Z' };
    const raised = await Promise.all(
      Array.from({ length: 6 }, () => transaction(pool(), (client) => raiseNotice(client, condition, { message: '80 % of the alert quota used' }))),
    );
    expect(raised.filter((notice) => notice !== null)).toHaveLength(1);
    const { rows } = await pool().query(`SELECT id FROM notices WHERE user_id = $1`, [userId]);
    expect(rows).toHaveLength(1);
  });

  it('resolves the open notice once with its own message job, and a second resolve finds nothing', async () => {
    const userId = await account();
    const condition = { userId, kind: 'source_silent' as const, source: '@jack' };
    const opened = await transaction(pool(), (client) => raiseNotice(client, condition, { message: 'no post from @jack for 6 h' }));
    const resolved = await transaction(pool(), (client) => resolveNotice(client, condition));
    const twice = await transaction(pool(), (client) => resolveNotice(client, condition));
    expect(resolved).toMatchObject({ id: opened!.id, resolvedAt: expect.any(Date) });
    expect(twice).toBeNull();
    expect(await outboxJobs(opened!.id)).toEqual([`notice-${opened!.id}-open`, `notice-${opened!.id}-resolved`]);
    expect(await openNotice(pool(), condition)).toBeNull();
  });

  it('opens no new notice for a condition that returns within the cooldown, and a new one after it', async () => {
    const userId = await account();
    const condition = { userId, kind: 'source_failing' as const, source: '$tsla' };
    const t0 = new Date('2026-11-27T10:00:00Z');
    await transaction(pool(), (client) => raiseNotice(client, condition, { message: 'failing', now: t0 }));
    await transaction(pool(), (client) => resolveNotice(client, condition, new Date('2026-11-27T10:05:00Z')));
    const flap = await transaction(pool(), (client) => raiseNotice(client, condition, { message: 'failing', now: new Date('2026-11-27T10:30:00Z'), cooldownSeconds: 3600 }));
    const later = await transaction(pool(), (client) => raiseNotice(client, condition, { message: 'failing', now: new Date('2026-11-27T11:06:00Z'), cooldownSeconds: 3600 }));
    expect(flap).toBeNull();
    expect(later).toMatchObject({ subject: '$tsla', resolvedAt: null });
  });

  it('keeps conditions apart by kind and subject, and raises nothing when the transaction rolls back', async () => {
    const userId = await account();
    await transaction(pool(), (client) => raiseNotice(client, { userId, kind: 'source_failing', source: '#a' }, { message: 'a' }));
    const other = await transaction(pool(), (client) => raiseNotice(client, { userId, kind: 'source_silent', source: '#a' }, { message: 'a' }));
    const otherSource = await transaction(pool(), (client) => raiseNotice(client, { userId, kind: 'source_failing', source: '#b' }, { message: 'b' }));
    expect(other).not.toBeNull();
    expect(otherSource).not.toBeNull();
    await expect(
      transaction(pool(), async (client) => {
        await raiseNotice(client, { userId, kind: 'source_failing', source: '#c' }, { message: 'c' });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await openNotice(pool(), { userId, kind: 'source_failing', source: '#c' })).toBeNull();
    const { rows } = await pool().query(`SELECT count(*)::int AS n FROM outbox_jobs o WHERE name = 'deliver-notice' AND NOT EXISTS (SELECT 1 FROM notices WHERE id = o.payload->>'noticeId')`);
    expect(rows[0].n).toBe(0);
  });

  it('refuses a kind CONTRACT 8 does not name', async () => {
    const userId = await account();
    await expect(
      transaction(pool(), (client) => raiseNotice(client, { userId, kind: 'disk_full' as never }, { message: 'x' })),
    ).rejects.toThrow();
  });
});

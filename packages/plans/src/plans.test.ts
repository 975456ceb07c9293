import { useTestEnvironment } from '@hashwatch/testing';
import { transaction } from '@hashwatch/db';
import { listPlans, resyncLimits, switchPlan, switchPlanInTransaction, updatePlan } from './plans';

describe('plans', () => {
  const env = useTestEnvironment();
  const prisma = () => env.database.db.prisma;

  async function createUser(id: string, planId: string) {
    const plan = await prisma().plan.findUniqueOrThrow({ where: { id: planId } });
    const { id: _planKey, name: _name, updatedAt: _updated, retentionDays: _retention, ...limits } = plan;
    return prisma().user.create({
      data: {
        id,
        email: `${id}@example.com`,
        planId,
        ...limits,
        subscriptionStatus: 'active',
        currentPeriodStart: new Date(),
        currentPeriodEnd: new Date(Date.now() + 30 * 86_400_000),
      },
    });
  }

  it('seeds the default limits, scan and engagement intervals and rate limits of Starter, Pro and Business', async () => {
    const plans = await listPlans(prisma());
    expect(plans.map((plan) => [plan.id, plan.hashtagsLimit, plan.accountsLimit, plan.engagementLimit, plan.webhooksLimit, plan.alertsLimit, plan.scanIntervalSeconds, plan.engagementRefreshSeconds, plan.rateLimitPerMinute])).toEqual([
      ['starter', 3, 2, 3, 1, 1000, 60, 300, 60],
      ['pro', 15, 10, 15, 5, 25000, 30, 180, 180],
      ['business', 40, 25, 25, 10, 75000, 10, 60, 600],
    ]);
  });

  it('changes a plan without touching existing snapshots until resync', async () => {
    await createUser('usr_resync', 'starter');
    await updatePlan(prisma(), 'starter', { hashtagsLimit: 5, scanIntervalSeconds: 1 });
    expect((await prisma().user.findUniqueOrThrow({ where: { id: 'usr_resync' } })).hashtagsLimit).toBe(3);
    const snapshot = await resyncLimits(prisma(), 'usr_resync');
    expect(snapshot).toMatchObject({ planId: 'starter', hashtagsLimit: 5, scanIntervalSeconds: 1 });
    expect((await prisma().user.findUniqueOrThrow({ where: { id: 'usr_resync' } })).hashtagsLimit).toBe(5);
    await updatePlan(prisma(), 'starter', { hashtagsLimit: 3, scanIntervalSeconds: 60 });
  });

  it('takes a snapshot of the new plan at once when an account switches plan', async () => {
    await createUser('usr_switch', 'starter');
    await switchPlan(prisma(), 'usr_switch', 'business');
    const user = await prisma().user.findUniqueOrThrow({ where: { id: 'usr_switch' } });
    expect(user).toMatchObject({ planId: 'business', hashtagsLimit: 40, rateLimitPerMinute: 600, engagementRefreshSeconds: 60 });
  });

  it('switches plan inside the caller\'s transaction with the same snapshot and scheduler signal, and not at all when it rolls back', async () => {
    const pool = env.database.db.pool;
    await createUser('usr_tx_switch', 'starter');
    await createUser('usr_tx_reference', 'starter');
    await pool.query(`DELETE FROM outbox_jobs WHERE name = 'reconcile-schedulers'`);
    const reference = await switchPlan(prisma(), 'usr_tx_reference', 'pro');
    const now = new Date('2026-11-20T10:00:00Z');
    const snapshot = await transaction(pool, (client) => switchPlanInTransaction(client, 'usr_tx_switch', 'pro', now));
    expect(snapshot).toEqual(reference);
    const user = await prisma().user.findUniqueOrThrow({ where: { id: 'usr_tx_switch' } });
    expect(user).toMatchObject({ ...reference, updatedAt: now });
    const queues = async () => (await pool.query<{ queue: string }>(`SELECT queue FROM outbox_jobs WHERE name = 'reconcile-schedulers' ORDER BY id`)).rows.map((row) => row.queue);
    expect(await queues()).toEqual(['source-scans', 'engagement-refreshes', 'source-scans', 'engagement-refreshes']);

    await expect(
      transaction(pool, async (client) => {
        await switchPlanInTransaction(client, 'usr_tx_switch', 'business');
        throw new Error('the caller failed after the switch');
      }),
    ).rejects.toThrow('the caller failed');
    expect((await prisma().user.findUniqueOrThrow({ where: { id: 'usr_tx_switch' } })).planId).toBe('pro');
    expect(await queues()).toHaveLength(4);
    expect(await transaction(pool, (client) => switchPlanInTransaction(client, 'usr_missing', 'pro'))).toBeNull();
    expect(await queues()).toHaveLength(4);
  });

  it('writes a reconcile-schedulers job for scans and engagement with every cadence change, and none for other limits', async () => {
    const signals = async () =>
      (await env.database.db.pool.query<{ queue: string; name: string; job_id: string; payload: unknown }>(
        `SELECT queue, name, job_id, payload FROM outbox_jobs WHERE name = 'reconcile-schedulers' ORDER BY id`,
      )).rows;
    await env.database.db.pool.query(`DELETE FROM outbox_jobs WHERE name = 'reconcile-schedulers'`);
    await createUser('usr_signal', 'pro');

    await updatePlan(prisma(), 'pro', { hashtagsLimit: 16 });
    expect(await signals()).toEqual([]);
    await updatePlan(prisma(), 'pro', { engagementRefreshSeconds: 2 });
    await resyncLimits(prisma(), 'usr_signal');
    await switchPlan(prisma(), 'usr_signal', 'business');
    const written = await signals();
    expect(written.map((row) => [row.queue, row.payload])).toEqual(
      [1, 2, 3].flatMap(() => [['source-scans', {}], ['engagement-refreshes', {}]]),
    );
    // Each its own job: BullMQ would drop a second add of an id it still holds.
    expect(new Set(written.map((row) => row.job_id)).size).toBe(6);
    await updatePlan(prisma(), 'pro', { hashtagsLimit: 15, engagementRefreshSeconds: 180 });
  });

  it('keeps feed items 90 days on every plan by default and takes a retention of 31 to 3650 days', async () => {
    expect((await listPlans(prisma())).map((plan) => plan.retentionDays)).toEqual([90, 90, 90]);
    expect((await updatePlan(prisma(), 'business', { retentionDays: 3650 })).retentionDays).toBe(3650);
    expect((await updatePlan(prisma(), 'business', { retentionDays: 31 })).retentionDays).toBe(31);
    await expect(updatePlan(prisma(), 'business', { retentionDays: 30 })).rejects.toThrow();
    await expect(updatePlan(prisma(), 'business', { retentionDays: 3651 })).rejects.toThrow();
    // The database refuses it too, whoever writes it.
    await expect(env.database.db.pool.query(`UPDATE plans SET retention_days = 7 WHERE id = 'business'`)).rejects.toThrow(/plans_retention_days_check/);
    expect((await prisma().plan.findUniqueOrThrow({ where: { id: 'business' } })).retentionDays).toBe(31);
    await updatePlan(prisma(), 'business', { retentionDays: 90 });
  });

  it('refuses an interval under 1 s or an unknown field', async () => {
    await expect(updatePlan(prisma(), 'pro', { scanIntervalSeconds: 0 })).rejects.toThrow();
    await expect(updatePlan(prisma(), 'pro', { bogus: 1 } as never)).rejects.toThrow();
  });
});

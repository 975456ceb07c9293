import type pg from 'pg';
import { z } from 'zod';
import type { Plan, PrismaClient } from '@hashwatch/db';
import { numberedOutboxStatement } from '@hashwatch/outbox';

export const PLAN_IDS = ['starter', 'pro', 'business'] as const;
export const planIdSchema = z.enum(PLAN_IDS);
export type PlanId = z.infer<typeof planIdSchema>;

const limit = z.number().int().min(0).max(1_000_000_000);
// Intervals down to 1 s are accepted: private deployments may pay for faster scans, and tests need them.
const interval = z.number().int().min(1).max(86_400);

/**
 * Days a plan keeps its accounts' feed items. At least 31: a billing period is at most 31 days, so every item of
 * the current period stays (the usage page's alerts-per-day chart counts them; the quota counts
 * usage_periods.alerts_used, so no deletion could refund alerts anyway). At most ten years.
 */
export const RETENTION_DAYS_MIN = 31;
export const RETENTION_DAYS_MAX = 3650;

/** The plan values an operator may change with `plan:set`. */
export const planConfigPatchSchema = z.strictObject({
  hashtagsLimit: limit.optional(),
  accountsLimit: limit.optional(),
  engagementLimit: limit.optional(),
  webhooksLimit: limit.optional(),
  alertsLimit: limit.optional(),
  scanIntervalSeconds: interval.optional(),
  engagementRefreshSeconds: interval.optional(),
  rateLimitPerMinute: z.number().int().min(1).max(1_000_000).optional(),
  retentionDays: z.number().int().min(RETENTION_DAYS_MIN).max(RETENTION_DAYS_MAX).optional(),
});
export type PlanConfigPatch = z.infer<typeof planConfigPatchSchema>;

/** The plan-derived values copied onto an account: the limits it lives by until its next snapshot. */
export interface LimitSnapshot {
  planId: string;
  hashtagsLimit: number;
  accountsLimit: number;
  engagementLimit: number;
  webhooksLimit: number;
  alertsLimit: number;
  scanIntervalSeconds: number;
  engagementRefreshSeconds: number;
  rateLimitPerMinute: number;
}

export function snapshotOf(plan: Plan): LimitSnapshot {
  return {
    planId: plan.id,
    hashtagsLimit: plan.hashtagsLimit,
    accountsLimit: plan.accountsLimit,
    engagementLimit: plan.engagementLimit,
    webhooksLimit: plan.webhooksLimit,
    alertsLimit: plan.alertsLimit,
    scanIntervalSeconds: plan.scanIntervalSeconds,
    engagementRefreshSeconds: plan.engagementRefreshSeconds,
    rateLimitPerMinute: plan.rateLimitPerMinute,
  };
}

export async function listPlans(prisma: PrismaClient): Promise<Plan[]> {
  return prisma.plan.findMany({ orderBy: { hashtagsLimit: 'asc' } });
}

// The scanner and the engagement poller keep one BullMQ job scheduler per cadence in use, reconciled from the
// plans and the accounts' snapshots. A change of cadence writes a `reconcile-schedulers` job for each queue to the
// outbox, in the change's own transaction, so both learn of it at the next relay (the notifier relays every
// second) rather than after the next tick of an existing cadence, which may be far slower than the new one
// (a cadence change must take effect within one period of the new cadence). The job id takes the outbox
// row's sequence number: every change is a new job, since BullMQ keeps finished jobs and drops a reused id.
const SIGNAL_CADENCE_CHANGE = numberedOutboxStatement(
  (['source-scans', 'engagement-refreshes'] as const).map((queue) => ({ queue, name: 'reconcile-schedulers' as const, payload: {}, jobIdPrefix: 'reconcile-schedulers-' })),
);
const signalCadenceChange = (prisma: PrismaClient) => prisma.$executeRawUnsafe(SIGNAL_CADENCE_CHANGE.text, ...SIGNAL_CADENCE_CHANGE.values);

const CADENCE_FIELDS = ['scanIntervalSeconds', 'engagementRefreshSeconds'] as const satisfies readonly (keyof PlanConfigPatch)[];

/**
 * Changes a plan's config. Accounts keep their snapshot until they switch plan or resync; a new cadence still
 * reaches the schedulers at once, since the plans' cadences are among those they keep ticking.
 */
export async function updatePlan(prisma: PrismaClient, planId: PlanId, patch: PlanConfigPatch): Promise<Plan> {
  const data = planConfigPatchSchema.parse(patch);
  const update = prisma.plan.update({ where: { id: planId }, data: { ...data, updatedAt: new Date() } });
  if (!CADENCE_FIELDS.some((field) => data[field] !== undefined)) return update;
  const [plan] = await prisma.$transaction([update, signalCadenceChange(prisma)]);
  return plan;
}

/** Moves an account to a plan and takes a fresh snapshot of its limits at once; the schedulers follow its cadences. */
export async function switchPlan(prisma: PrismaClient, userId: string, planId: PlanId): Promise<LimitSnapshot> {
  const plan = await prisma.plan.findUniqueOrThrow({ where: { id: planId } });
  const snapshot = snapshotOf(plan);
  await prisma.$transaction([
    prisma.user.update({ where: { id: userId }, data: { ...snapshot, updatedAt: new Date() } }),
    signalCadenceChange(prisma),
  ]);
  return snapshot;
}

// The users column each snapshot field is copied to, from the plans column of the same name; the compiler checks
// that every field of LimitSnapshot has one, so this copy and snapshotOf cannot drift apart.
const SNAPSHOT_COLUMNS = {
  planId: 'plan_id',
  hashtagsLimit: 'hashtags_limit',
  accountsLimit: 'accounts_limit',
  engagementLimit: 'engagement_limit',
  webhooksLimit: 'webhooks_limit',
  alertsLimit: 'alerts_limit',
  scanIntervalSeconds: 'scan_interval_seconds',
  engagementRefreshSeconds: 'engagement_refresh_seconds',
  rateLimitPerMinute: 'rate_limit_per_minute',
} as const satisfies Record<keyof LimitSnapshot, string>;

const SWITCH_PLAN = `UPDATE users u
   SET ${Object.values(SNAPSHOT_COLUMNS).map((column) => `${column} = p.${column === 'plan_id' ? 'id' : column}`).join(', ')}, updated_at = $3
  FROM plans p
 WHERE u.id = $1 AND p.id = $2
RETURNING ${Object.entries(SNAPSHOT_COLUMNS).map(([field, column]) => `u.${column} AS "${field}"`).join(', ')}`;

/**
 * {@link switchPlan} in the caller's pg transaction, for a plan change that arrives with other writes it must
 * commit or roll back with (a billing provider's subscription event). Returns null when the account (or the plan) does not exist.
 */
export async function switchPlanInTransaction(client: pg.PoolClient, userId: string, planId: PlanId, now = new Date()): Promise<LimitSnapshot | null> {
  const { rows } = await client.query<LimitSnapshot>(SWITCH_PLAN, [userId, planIdSchema.parse(planId), now]);
  const snapshot = rows[0];
  if (!snapshot) return null;
  await client.query(SIGNAL_CADENCE_CHANGE.text, SIGNAL_CADENCE_CHANGE.values);
  return snapshot;
}

/**
 * Re-reads the account's current plan and takes a fresh snapshot (`POST /me/resync-limits`); the schedulers follow
 * its cadences.
 */
export async function resyncLimits(prisma: PrismaClient, userId: string): Promise<LimitSnapshot> {
  const user = await prisma.user.findUniqueOrThrow({ where: { id: userId }, include: { plan: true } });
  const snapshot = snapshotOf(user.plan);
  await prisma.$transaction([
    prisma.user.update({ where: { id: userId }, data: { ...snapshot, updatedAt: new Date() } }),
    signalCadenceChange(prisma),
  ]);
  return snapshot;
}

import type { PrismaClient } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';

/** Throws `not_found` when the plan row is missing: the database was migrated but never seeded. */
export async function requirePlan(prisma: PrismaClient, planId: string): Promise<void> {
  const plan = await prisma.plan.findUnique({ where: { id: planId }, select: { id: true } });
  if (!plan) throw new AppError('not_found', `plan ${planId} not found: run npm run db:migrate to seed the plans`);
}

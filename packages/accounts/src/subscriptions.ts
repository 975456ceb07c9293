import { z } from 'zod';
import type { Prisma, PrismaClient } from '@hashwatch/db';

/** `pending`: created by a checkout and not paid (or activated) yet. */
export const subscriptionStatusSchema = z.enum(['pending', 'active', 'past_due', 'canceled']);

export interface SubscriptionState {
  subscriptionStatus: z.infer<typeof subscriptionStatusSchema>;
  currentPeriodEnd: Date;
}

/** Why the account may not use the API right now (402 `subscription_inactive`), or null when it may. */
export function subscriptionProblem(state: SubscriptionState, now = new Date()): string | null {
  if (state.subscriptionStatus === 'pending') return 'the subscription is not active yet: complete the checkout, or wait for the operator to activate it';
  if (state.subscriptionStatus === 'canceled') return 'the subscription is canceled';
  if (state.subscriptionStatus === 'past_due') return 'the subscription is past due: payment is required';
  if (state.currentPeriodEnd.getTime() <= now.getTime()) {
    return `the subscription expired on ${state.currentPeriodEnd.toISOString()}`;
  }
  return null;
}

const DAY_MS = 86_400_000;
/** An activation without a period end (an operator activating a checkout) runs 30 days, as `account:create` does. */
const DEFAULT_PERIOD_DAYS = 30;

/**
 * Sets the subscription status; with `periodEnd`, a new period starts now (or keeps its start when the end only
 * moves). Activating an account whose period has ended (a pending checkout, a lapsed account) without a
 * `periodEnd` starts a new 30-day period. Activation also marks the account's open checkouts completed.
 * Returns false when the account does not exist.
 */
export async function setSubscription(
  prisma: PrismaClient,
  accountId: string,
  input: { status: z.infer<typeof subscriptionStatusSchema>; periodEnd?: Date; now?: Date },
): Promise<boolean> {
  const now = input.now ?? new Date();
  const user = await prisma.user.findUnique({ where: { id: accountId }, select: { currentPeriodEnd: true } });
  if (!user) return false;
  const ended = user.currentPeriodEnd.getTime() <= now.getTime();
  const periodEnd = input.periodEnd ?? (input.status === 'active' && ended ? new Date(now.getTime() + DEFAULT_PERIOD_DAYS * DAY_MS) : undefined);
  const startsNewPeriod = periodEnd !== undefined && ended;
  const update = prisma.user.update({
    where: { id: accountId },
    data: {
      subscriptionStatus: input.status,
      ...(periodEnd ? { currentPeriodEnd: periodEnd } : {}),
      ...(startsNewPeriod ? { currentPeriodStart: now } : {}),
      updatedAt: now,
    },
  });
  const writes: Prisma.PrismaPromise<unknown>[] = [update];
  if (input.status === 'active') writes.push(prisma.checkout.updateMany({ where: { userId: accountId, completedAt: null }, data: { completedAt: now } }));
  await prisma.$transaction(writes);
  return true;
}

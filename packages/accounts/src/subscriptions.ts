import { z } from 'zod';
import type { PrismaClient } from '@hashwatch/db';

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

/**
 * Sets the subscription status; with `periodEnd`, a new period starts now (or keeps its start when
 * the end only moves). Returns false when the account does not exist.
 */
export async function setSubscription(
  prisma: PrismaClient,
  accountId: string,
  input: { status: z.infer<typeof subscriptionStatusSchema>; periodEnd?: Date; now?: Date },
): Promise<boolean> {
  const now = input.now ?? new Date();
  const user = await prisma.user.findUnique({ where: { id: accountId }, select: { currentPeriodEnd: true } });
  if (!user) return false;
  const startsNewPeriod = input.periodEnd !== undefined && user.currentPeriodEnd.getTime() <= now.getTime();
  await prisma.user.update({
    where: { id: accountId },
    data: {
      subscriptionStatus: input.status,
      ...(input.periodEnd ? { currentPeriodEnd: input.periodEnd } : {}),
      ...(startsNewPeriod ? { currentPeriodStart: now } : {}),
      updatedAt: now,
    },
  });
  return true;
}

import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '@hashwatch/db';
import { snapshotOf, type PlanId } from '@hashwatch/plans';
import type { BillingProvider } from '../provider';

export interface PendingCheckout {
  accountId: string;
  checkoutId: string;
  url: string;
  providerSessionId: string;
}

const DAY_MS = 86_400_000;

/**
 * What the public checkout does before the person pays: a pending account on `plan`, a checkouts row, and the
 * provider's checkout for it (its session id stored on the row).
 */
export async function startPendingCheckout(prisma: PrismaClient, provider: BillingProvider, input: { email: string; plan: PlanId; now?: Date }): Promise<PendingCheckout> {
  const now = input.now ?? new Date();
  const plan = await prisma.plan.findUniqueOrThrow({ where: { id: input.plan } });
  const accountId = `usr_${randomBytes(9).toString('base64url')}`;
  const checkoutId = `chk_${randomBytes(9).toString('base64url')}`;
  await prisma.user.create({
    data: { id: accountId, email: input.email, ...snapshotOf(plan), subscriptionStatus: 'pending', currentPeriodStart: now, currentPeriodEnd: new Date(now.getTime() + 30 * DAY_MS) },
  });
  const started = await provider.startCheckout({
    checkoutId,
    accountId,
    email: input.email,
    plan: input.plan,
    customerId: null,
    successUrl: `http://localhost:3000/checkout/${checkoutId}/done`,
    cancelUrl: `http://localhost:3000/checkout/${checkoutId}`,
  });
  if (!started.providerSessionId) throw new Error('the provider answered no session id');
  await prisma.checkout.create({ data: { id: checkoutId, userId: accountId, planId: input.plan, provider: provider.name, providerSessionId: started.providerSessionId, url: started.url } });
  return { accountId, checkoutId, url: started.url, providerSessionId: started.providerSessionId };
}

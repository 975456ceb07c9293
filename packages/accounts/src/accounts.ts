import { AppError } from '@hashwatch/errors';
import { newId, Prisma, type PrismaClient } from '@hashwatch/db';
import { snapshotOf, type PlanId } from '@hashwatch/plans';
import { generateApiKey, hashApiKey } from '@hashwatch/secrets';

const DAY_MS = 86_400_000;

export interface CreatedAccount {
  accountId: string;
  apiKey: string;
}

/**
 * Creates an account on a plan with an active subscription of `periodDays` and its first API key.
 * The key is returned once; only its hash is stored. Emails are unique case-insensitively.
 */
export async function createAccount(
  prisma: PrismaClient,
  input: { email: string; planId: PlanId; now?: Date; periodDays?: number },
): Promise<CreatedAccount> {
  const now = input.now ?? new Date();
  const email = input.email.trim().toLowerCase();
  const plan = await prisma.plan.findUnique({ where: { id: input.planId } });
  if (!plan) throw new AppError('invalid_request', `plan: unknown plan ${input.planId}`);
  const accountId = newId('usr');
  const apiKey = generateApiKey();
  try {
    await prisma.user.create({
      data: {
        id: accountId,
        email,
        ...snapshotOf(plan),
        subscriptionStatus: 'active',
        currentPeriodStart: now,
        currentPeriodEnd: new Date(now.getTime() + (input.periodDays ?? 30) * DAY_MS),
        createdAt: now,
        apiKeys: { create: { id: newId('key'), keyHash: hashApiKey(apiKey), keyPrefix: apiKey.slice(0, 12) } },
      },
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      throw new AppError('already_exists', `an account with email ${email} already exists`);
    }
    throw error;
  }
  return { accountId, apiKey };
}

export async function findAccountByEmail(prisma: PrismaClient, email: string): Promise<string | null> {
  const user = await prisma.user.findUnique({ where: { email: email.trim().toLowerCase() }, select: { id: true } });
  return user?.id ?? null;
}

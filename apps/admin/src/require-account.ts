import type { PrismaClient } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';

/** Throws `not_found` unless the account exists, so a command never half-acts on a wrong id. */
export async function requireAccount(prisma: PrismaClient, accountId: string): Promise<void> {
  const user = await prisma.user.findUnique({ where: { id: accountId }, select: { id: true } });
  if (!user) throw new AppError('not_found', `account ${accountId} not found`);
}

import { newId, type Prisma, type PrismaClient } from '@hashwatch/db';
import { generateApiKey, hashApiKey } from '@hashwatch/secrets';

export interface AuthenticatedKey {
  keyId: string;
  userId: string;
}

/**
 * Revokes every live key of the account and issues a new one in one transaction: from the commit on,
 * the old key answers 401 everywhere, because authentication always reads the database (no cache).
 */
export async function issueApiKey(prisma: PrismaClient | Prisma.TransactionClient, userId: string, now = new Date()): Promise<string> {
  const apiKey = generateApiKey();
  const run = async (tx: Prisma.TransactionClient) => {
    await tx.apiKey.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
    await tx.apiKey.create({ data: { id: newId('key'), userId, keyHash: hashApiKey(apiKey), keyPrefix: apiKey.slice(0, 12), createdAt: now } });
  };
  if ('$transaction' in prisma) await prisma.$transaction(run);
  else await run(prisma);
  return apiKey;
}

/** Looks a presented key up by its SHA-256; null for an unknown or revoked key. */
export async function authenticateApiKey(prisma: PrismaClient, apiKey: string): Promise<AuthenticatedKey | null> {
  const key = await prisma.apiKey.findUnique({ where: { keyHash: hashApiKey(apiKey) }, select: { id: true, userId: true, revokedAt: true } });
  if (!key || key.revokedAt) return null;
  return { keyId: key.id, userId: key.userId };
}

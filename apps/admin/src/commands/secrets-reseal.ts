import { z } from 'zod';
import { AppError } from '@hashwatch/errors';
import { resealSecrets, SecretsKeyMismatchError } from '@hashwatch/secrets';
import { defineCommand } from '../command';

// Each stored secret is read, opened and written once; a large install may take more than Prisma's default 5 s.
const TRANSACTION_TIMEOUT_MS = 10 * 60_000;

export const secretsReseal = defineCommand({
  usage: 'secrets:reseal',
  description: 'seals every stored secret again with SECRETS_KEY, opening old ones with SECRETS_KEY_PREVIOUS (key rotation)',
  flags: z.strictObject({}),
  async run(_input, { prisma, cipher }) {
    if (!cipher) throw new AppError('invalid_request', 'SECRETS_KEY is required: secrets:reseal seals every stored secret with it');
    try {
      // One transaction: a secret neither key opens throws before anything is written, and the rollback keeps all.
      const resealed = await prisma.$transaction(
        (tx) => resealSecrets((sql, values) => tx.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...values), cipher),
        { timeout: TRANSACTION_TIMEOUT_MS, maxWait: 10_000 },
      );
      return { resealed };
    } catch (error) {
      if (error instanceof SecretsKeyMismatchError) throw new AppError('invalid_request', error.message);
      throw error;
    }
  },
});

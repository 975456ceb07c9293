import { z } from 'zod';
import { issueApiKey } from '@hashwatch/accounts';
import { defineCommand } from '../command';
import { accountFlag } from '../flag-schemas';
import { requireAccount } from '../require-account';

export const apikeyRegenerate = defineCommand({
  usage: 'apikey:regenerate --account ID',
  description: "issues a new API key for the account and revokes its old ones at once",
  flags: z.strictObject({ account: accountFlag }),
  async run(input, { prisma, now, notify }) {
    await requireAccount(prisma, input.account);
    const apiKey = await issueApiKey(prisma, input.account, now());
    await notify?.(input.account, { kind: 'api_key_regenerated', byOperator: true });
    return { api_key: apiKey };
  },
});

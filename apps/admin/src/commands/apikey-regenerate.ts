import { z } from 'zod';
import { issueApiKey } from '@hashwatch/accounts';
import { defineCommand } from '../command';
import { accountFlag } from '../flag-schemas';
import { requireAccount } from '../require-account';

export const apikeyRegenerate = defineCommand({
  usage: 'apikey:regenerate --account ID',
  description: "issues a new API key for the account and revokes its old ones at once",
  flags: z.strictObject({ account: accountFlag }),
  async run(input, { prisma, now }) {
    await requireAccount(prisma, input.account);
    return { api_key: await issueApiKey(prisma, input.account, now()) };
  },
});

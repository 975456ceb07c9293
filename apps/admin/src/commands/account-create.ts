import { z } from 'zod';
import { createAccount } from '@hashwatch/accounts';
import { defineCommand } from '../command';
import { emailFlag, planFlag } from '../flag-schemas';

export const accountCreate = defineCommand({
  usage: 'account:create --email E --plan starter|pro|business',
  description: 'creates an account with an active 30-day subscription and prints its first API key',
  flags: z.strictObject({ email: emailFlag, plan: planFlag }),
  async run(input, { prisma, now }) {
    const { accountId, apiKey } = await createAccount(prisma, { email: input.email, planId: input.plan, now: now() });
    return { account_id: accountId, api_key: apiKey };
  },
});

import { z } from 'zod';
import { findAccountByEmail } from '@hashwatch/accounts';
import { AppError } from '@hashwatch/errors';
import { defineCommand } from '../command';
import { emailFlag } from '../flag-schemas';

export const accountFind = defineCommand({
  usage: 'account:find --email E',
  description: 'prints the id of the account with that email (case-insensitive)',
  flags: z.strictObject({ email: emailFlag }),
  async run(input, { prisma }) {
    const accountId = await findAccountByEmail(prisma, input.email);
    if (!accountId) throw new AppError('not_found', `no account has the email ${input.email.trim().toLowerCase()}`);
    return { account_id: accountId };
  },
});

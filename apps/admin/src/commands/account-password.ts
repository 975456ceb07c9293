import { z } from 'zod';
import { hashPassword } from '@hashwatch/secrets';
import { defineCommand } from '../command';
import { accountFlag } from '../flag-schemas';
import { requireAccount } from '../require-account';

export const accountPassword = defineCommand({
  usage: 'account:password --account ID --password P',
  description: 'sets the password the account signs in to the dashboard with (12–200 characters); ends its sessions, pending 2FA sign-ins and reset links',
  flags: z.strictObject({
    account: accountFlag,
    password: z.string({ error: () => 'is required' }).min(12, 'must be 12 to 200 characters').max(200, 'must be 12 to 200 characters'),
  }),
  async run(input, { prisma, now, notify }) {
    await requireAccount(prisma, input.account);
    const passwordHash = await hashPassword(input.password);
    // As a password change through the API: the sessions signed in with the old password end, and so do the
    // sign-ins waiting on their 2FA step and the reset links not yet used (one could overwrite this password).
    const [, ended] = await prisma.$transaction([
      prisma.user.update({ where: { id: input.account }, data: { passwordHash, updatedAt: now() } }),
      prisma.session.deleteMany({ where: { userId: input.account } }),
      prisma.loginChallenge.deleteMany({ where: { userId: input.account } }),
      prisma.passwordReset.deleteMany({ where: { userId: input.account } }),
    ]);
    await notify?.(input.account, { kind: 'password_changed', byOperator: true });
    return { account_id: input.account, sessions_ended: ended.count };
  },
});

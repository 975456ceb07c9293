import { z } from 'zod';
import { defineCommand } from '../command';
import { accountFlag } from '../flag-schemas';
import { requireAccount } from '../require-account';

export const account2faReset = defineCommand({
  usage: 'account:2fa-reset --account ID',
  description:
    'turns two-factor authentication off (secret, pending enrolment, recovery codes) and ends every session and pending 2FA sign-in: for an owner locked out by a lost authenticator or an enrolment they did not make',
  flags: z.strictObject({ account: accountFlag }),
  async run(input, { prisma, now, notify }) {
    await requireAccount(prisma, input.account);
    // One transaction: nobody signs in between 2FA going off and the sessions of whoever enrolled it ending.
    await prisma.$transaction([
      prisma.user.update({ where: { id: input.account }, data: { totpSecretEnc: null, totpPendingSecretEnc: null, totpLastStep: null, updatedAt: now() } }),
      prisma.recoveryCode.deleteMany({ where: { userId: input.account } }),
      prisma.session.deleteMany({ where: { userId: input.account } }),
      prisma.loginChallenge.deleteMany({ where: { userId: input.account } }),
    ]);
    await notify?.(input.account, { kind: 'two_factor_disabled', byOperator: true });
    return { account_id: input.account, two_factor_enabled: false };
  },
});

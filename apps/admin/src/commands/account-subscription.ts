import { z } from 'zod';
import { setSubscription } from '@hashwatch/accounts';
import { AppError } from '@hashwatch/errors';
import { defineCommand } from '../command';
import { accountFlag, instantFlag, subscriptionStatusFlag } from '../flag-schemas';

export const accountSubscription = defineCommand({
  usage: 'account:subscription --account ID --status active|past_due|canceled [--period-end ISO]',
  description: 'sets the subscription; anything but an active, unexpired one answers 402 on the API',
  flags: z.strictObject({ account: accountFlag, status: subscriptionStatusFlag, 'period-end': instantFlag.optional() }),
  async run(input, { prisma, now }) {
    const periodEnd = input['period-end'];
    const found = await setSubscription(prisma, input.account, { status: input.status, now: now(), ...(periodEnd ? { periodEnd } : {}) });
    if (!found) throw new AppError('not_found', `account ${input.account} not found`);
    const user = await prisma.user.findUnique({
      where: { id: input.account },
      select: { subscriptionStatus: true, currentPeriodEnd: true },
    });
    if (!user) throw new AppError('not_found', `account ${input.account} not found`);
    return { account_id: input.account, status: user.subscriptionStatus, current_period_end: user.currentPeriodEnd.toISOString() };
  },
});

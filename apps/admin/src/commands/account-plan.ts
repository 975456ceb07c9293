import { z } from 'zod';
import { switchPlan } from '@hashwatch/plans';
import { defineCommand } from '../command';
import { accountFlag, planFlag } from '../flag-schemas';
import { renderLimits } from '../render-plan';
import { requireAccount } from '../require-account';
import { requirePlan } from '../require-plan';

export const accountPlan = defineCommand({
  usage: 'account:plan --account ID --plan starter|pro|business',
  description: "moves an account to a plan and takes a fresh snapshot of the plan's limits at once",
  flags: z.strictObject({ account: accountFlag, plan: planFlag }),
  async run(input, { prisma }) {
    await requireAccount(prisma, input.account);
    await requirePlan(prisma, input.plan);
    const { planId, ...limits } = await switchPlan(prisma, input.account, input.plan);
    return { account_id: input.account, plan: planId, ...renderLimits(limits) };
  },
});

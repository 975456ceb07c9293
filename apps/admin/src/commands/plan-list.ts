import { z } from 'zod';
import { listPlans } from '@hashwatch/plans';
import { defineCommand } from '../command';
import { renderPlan } from '../render-plan';

export const planList = defineCommand({
  usage: 'plan:list',
  description: 'prints every plan with its current config',
  flags: z.strictObject({}),
  async run(_input, { prisma }) {
    return { data: (await listPlans(prisma)).map(renderPlan) };
  },
});

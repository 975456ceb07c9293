import { z } from 'zod';
import { AppError } from '@hashwatch/errors';
import { planConfigPatchSchema, updatePlan, type PlanConfigPatch } from '@hashwatch/plans';
import { defineCommand } from '../command';
import { countFlag, planFlag } from '../flag-schemas';
import { renderPlan } from '../render-plan';
import { requirePlan } from '../require-plan';

const patchFieldByFlag = {
  hashtags: 'hashtagsLimit',
  accounts: 'accountsLimit',
  engagement: 'engagementLimit',
  webhooks: 'webhooksLimit',
  alerts: 'alertsLimit',
  'scan-interval': 'scanIntervalSeconds',
  'engagement-interval': 'engagementRefreshSeconds',
  'rate-limit': 'rateLimitPerMinute',
  'retention-days': 'retentionDays',
} as const satisfies Record<string, keyof PlanConfigPatch>;

type ValueFlag = keyof typeof patchFieldByFlag;
const valueFlags = Object.keys(patchFieldByFlag) as ValueFlag[];

export const planSet = defineCommand({
  usage:
    'plan:set --plan P [--hashtags N] [--accounts N] [--engagement N] [--webhooks N] [--alerts N] ' +
    '[--scan-interval S] [--engagement-interval S] [--rate-limit N] [--retention-days N]',
  description: "changes a plan's config; accounts keep their limits until they change plan or resync",
  flags: z.strictObject({
    plan: planFlag,
    ...(Object.fromEntries(valueFlags.map((flag) => [flag, countFlag.optional()])) as Record<ValueFlag, z.ZodOptional<typeof countFlag>>),
  }),
  async run(input, { prisma }) {
    const patch: PlanConfigPatch = {};
    for (const flag of valueFlags) {
      const value = input[flag];
      if (value !== undefined) patch[patchFieldByFlag[flag]] = value;
    }
    if (Object.keys(patch).length === 0) {
      throw new AppError('invalid_request', `plan:set needs at least one of ${valueFlags.map((flag) => `--${flag}`).join(', ')}`);
    }
    // The bounds are the domain's (limits ≥ 0, intervals ≥ 1 s); report them under the flag's name.
    const checked = planConfigPatchSchema.safeParse(patch);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const flag = valueFlags.find((name) => patchFieldByFlag[name] === issue?.path[0]) ?? '?';
      throw new AppError('invalid_request', `--${flag} ${boundMessage(issue)}`);
    }
    await requirePlan(prisma, input.plan);
    return { plan: renderPlan(await updatePlan(prisma, input.plan, checked.data)) };
  },
});

function boundMessage(issue: z.core.$ZodIssue | undefined): string {
  if (issue?.code === 'too_small') return `must be at least ${String(issue.minimum)}`;
  if (issue?.code === 'too_big') return `must be at most ${String(issue.maximum)}`;
  return issue?.message ?? 'is invalid';
}

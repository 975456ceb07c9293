import type { Command } from './command';
import { account2faReset } from './commands/account-2fa-reset';
import { accountCreate } from './commands/account-create';
import { accountFind } from './commands/account-find';
import { accountPassword } from './commands/account-password';
import { accountPlan } from './commands/account-plan';
import { accountSubscription } from './commands/account-subscription';
import { apikeyRegenerate } from './commands/apikey-regenerate';
import { planList } from './commands/plan-list';
import { planSet } from './commands/plan-set';
import { secretsReseal } from './commands/secrets-reseal';
import { usageReport } from './commands/usage-report';

/** Every command of the admin CLI by name; apps/admin/README.md shows each with an example. */
export const commands = {
  'account:2fa-reset': account2faReset,
  'account:create': accountCreate,
  'account:find': accountFind,
  'account:password': accountPassword,
  'account:plan': accountPlan,
  'account:subscription': accountSubscription,
  'apikey:regenerate': apikeyRegenerate,
  'plan:set': planSet,
  'plan:list': planList,
  'secrets:reseal': secretsReseal,
  'usage:report': usageReport,
} satisfies Record<string, Command>;

export type CommandName = keyof typeof commands;

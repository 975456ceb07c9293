import { eraseAccount } from '@hashwatch/accounts';
import { resyncLimits } from '@hashwatch/plans';
import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { TOTP_HEADER, totpHeaderSchema } from '../two-factor/two-factor.schema';
import type { TwoFactorGuard } from '../two-factor/two-factor.service';
import { eraseAccountKeys } from './erase-keys';
import { accountDeletedSchema, meSchema } from './me.schema';
import { getMe } from './me.service';
import { usageSchema } from './usage.schema';
import { getUsage } from './usage.service';

export function registerMeRoutes(api: ApiBuilder, deps: GatewayDeps, guard: TwoFactorGuard): void {
  const { pool, prisma } = deps.db;
  api.route({
    method: 'get',
    path: '/me',
    tag: 'Account',
    summary: 'The account, its plan, subscription and effective limits.',
    description: 'Read limits from here rather than hardcoding the plan table: plan configs can change.',
    success: { status: 200, description: 'The account.', schema: meSchema },
    handler: ({ auth }) => getMe(pool, auth.userId),
  });
  api.route({
    method: 'post',
    path: '/me/resync-limits',
    tag: 'Account',
    summary: 'Take a fresh snapshot of the limits from the current plan’s configuration.',
    description: 'Limits are copied from the plan when the account is created or moves plan; this picks up later changes to the plan. Takes no body.',
    success: { status: 200, description: 'The account with its new limits, as `GET /me` answers it.', schema: meSchema },
    handler: async ({ auth }) => {
      await resyncLimits(prisma, auth.userId);
      return getMe(pool, auth.userId);
    },
  });
  api.route({
    method: 'delete',
    path: '/me',
    tag: 'Account',
    summary: 'Erase the account and all its data (tracks, feed, channels, deliveries, usage, keys).',
    description: `Cannot be undone; the API key answers 401 afterwards. While 2FA is on, send the current code in \`${TOTP_HEADER}\`; wrong codes count against the 2FA limit (6 per 5 minutes).`,
    headers: totpHeaderSchema,
    success: { status: 200, description: 'The account is gone.', schema: accountDeletedSchema },
    errors: ['invalid_request', 'two_factor_required', 'invalid_two_factor_code'],
    handler: async ({ auth, req, res }) => {
      await guard.requireCode(auth.userId, req.header(TOTP_HEADER), res);
      const erased = await eraseAccount(pool, auth.userId);
      // After the commit: a writer still holding the account's data in memory may write a key again, but no longer
      // finds the rows it would act on.
      if (erased) await eraseAccountKeys(deps.redis, deps.keyPrefix, erased);
      return { deleted: true as const };
    },
  });
  api.route({
    method: 'get',
    path: '/usage',
    tag: 'Account',
    summary: 'Usage of the current billing period against the limits.',
    description:
      '`upstream_posts_read`: X posts read on your behalf this period, shared reads split across accounts (one read serving several accounts counts a fraction for each).',
    success: { status: 200, description: 'The current period’s usage.', schema: usageSchema },
    handler: ({ auth }) => getUsage(pool, auth.userId),
  });
}

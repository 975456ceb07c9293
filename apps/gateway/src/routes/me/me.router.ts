import { eraseAccount } from '@hashwatch/accounts';
import { BillingUnavailableError } from '@hashwatch/billing';
import { AppError } from '@hashwatch/errors';
import { resyncLimits } from '@hashwatch/plans';
import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { tightLimit } from '../../middleware/tight-limit';
import { clearSessionCookie } from '../../sessions/session-store';
import { changePassword } from '../session/passwords.service';
import type { SelfServiceOptions } from '../session/self-service-options';
import { passwordChangeSchema, passwordSetSchema } from '../session/session.schema';
import { TOTP_HEADER, totpHeaderSchema } from '../two-factor/two-factor.schema';
import type { TwoFactorGuard } from '../two-factor/two-factor.service';
import { eraseAccountKeys } from './erase-keys';
import { accountDeletedSchema, meSchema } from './me.schema';
import { getMe } from './me.service';
import { usageSchema } from './usage.schema';
import { getUsage } from './usage.service';

// Wrong current passwords on POST /me/password: 10 per 15 minutes per account, so a stolen session cannot guess it.
const PASSWORD_CHANGE_FAILURES = 10;

export function registerMeRoutes(api: ApiBuilder, deps: GatewayDeps, guard: TwoFactorGuard, options: SelfServiceOptions): void {
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
    summary: 'Erase the account and all its data (tracks, feed, channels, deliveries, usage, keys, sessions).',
    description: [
      `Cannot be undone; the API key and every session answer 401 afterwards. While 2FA is on, send the current code in \`${TOTP_HEADER}\`; wrong codes count against the 2FA limit (6 per 5 minutes).`,
      'The billing provider’s subscription is canceled first; when the provider does not answer, nothing is erased (503) and the request can be repeated.',
    ].join(' '),
    headers: totpHeaderSchema,
    success: { status: 200, description: 'The account is gone.', schema: accountDeletedSchema },
    errors: ['invalid_request', 'two_factor_required', 'invalid_two_factor_code', 'service_unavailable'],
    handler: async ({ auth, req, res }) => {
      await guard.requireCode(auth.userId, req.header(TOTP_HEADER), res);
      await cancelBilling(deps, options, auth.userId);
      const erased = await eraseAccount(pool, auth.userId);
      if (auth.sessionId) clearSessionCookie(req, res);
      // After the commit: a writer still holding the account's data in memory may write a key again, but no longer
      // finds the rows it would act on.
      if (erased) await eraseAccountKeys(deps.redis, deps.keyPrefix, erased);
      return { deleted: true as const };
    },
  });
  const passwordFailures = tightLimit(deps, 'password-change', 'Wrong current passwords', PASSWORD_CHANGE_FAILURES, 15 * 60);
  api.route({
    method: 'post',
    path: '/me/password',
    tag: 'Account',
    summary: 'Change the dashboard password.',
    description: 'Needs the current password. Every session of the account ends, this one too (its cookie is cleared): sign in again with the new password. Wrong current passwords are limited to 10 per 15 minutes.',
    body: passwordChangeSchema,
    success: { status: 200, description: 'The password is changed.', schema: passwordSetSchema },
    errors: ['invalid_credentials'],
    // Every attempt is counted before the check and given back after a success, so parallel guesses stop at the limit.
    limit: passwordFailures,
    handler: async ({ auth, body, req, res }) => {
      const changed = await changePassword(deps, auth, body);
      await passwordFailures.limiter.refund(auth.userId);
      if (auth.sessionId) clearSessionCookie(req, res);
      return changed;
    },
  });
  api.route({
    method: 'get',
    path: '/usage',
    tag: 'Account',
    summary: 'Usage of the current billing period against the limits.',
    description:
      '`upstream_posts_read`: X posts read on your behalf this period, shared reads split across accounts (one read serving several accounts counts a fraction for each). ' +
      '`upstream`: the same reads, the requests X answered, and both per source (`#tag` / `@user`).',
    success: { status: 200, description: 'The current period’s usage.', schema: usageSchema },
    handler: ({ auth }) => getUsage(pool, auth.userId, deps.now()),
  });
}

/** Cancels the provider's subscription of the account before it is erased; a provider that does not answer stops the erasure. */
async function cancelBilling(deps: GatewayDeps, options: SelfServiceOptions, userId: string): Promise<void> {
  const { rows } = await deps.db.pool.query<{ billing_subscription_id: string | null }>('SELECT billing_subscription_id FROM users WHERE id = $1', [userId]);
  try {
    await options.billing.cancelSubscription({ subscriptionId: rows[0]?.billing_subscription_id ?? null });
  } catch (error) {
    if (error instanceof BillingUnavailableError) throw new AppError('service_unavailable', 'the billing provider did not answer; nothing was erased, try again shortly');
    throw error;
  }
}

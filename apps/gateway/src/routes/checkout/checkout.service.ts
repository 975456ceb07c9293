import { BillingUnavailableError } from '@hashwatch/billing';
import { newId, transaction } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import type { PlanId } from '@hashwatch/plans';
import { hashPassword } from '@hashwatch/secrets';
import type { GatewayDeps } from '../../deps';
import { publicLink, type SelfServiceOptions } from '../session/self-service-options';

const DAY_MS = 86_400_000;
/** A subscription activated without a provider (BILLING_AUTO_ACTIVATE) runs 30 days, as `account:create` does. */
const MANUAL_PERIOD_DAYS = 30;

interface CheckoutInput {
  email: string;
  plan: PlanId;
  password: string;
}

// The pending account of this email, created or updated: a new checkout of a pending account replaces its plan
// (with a fresh limit snapshot) and its password. Any other account of the email keeps everything.
const UPSERT_PENDING = `
INSERT INTO users (id, email, plan_id, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit,
                   scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute, subscription_status,
                   current_period_start, current_period_end, password_hash, created_at, updated_at)
SELECT $1, $2, p.id, p.hashtags_limit, p.accounts_limit, p.engagement_limit, p.webhooks_limit, p.alerts_limit,
       p.scan_interval_seconds, p.engagement_refresh_seconds, p.rate_limit_per_minute, 'pending', $5, $5, $4, $5, $5
  FROM plans p WHERE p.id = $3
ON CONFLICT (email) DO UPDATE
   SET plan_id = EXCLUDED.plan_id, hashtags_limit = EXCLUDED.hashtags_limit, accounts_limit = EXCLUDED.accounts_limit,
       engagement_limit = EXCLUDED.engagement_limit, webhooks_limit = EXCLUDED.webhooks_limit,
       alerts_limit = EXCLUDED.alerts_limit, scan_interval_seconds = EXCLUDED.scan_interval_seconds,
       engagement_refresh_seconds = EXCLUDED.engagement_refresh_seconds,
       rate_limit_per_minute = EXCLUDED.rate_limit_per_minute, password_hash = EXCLUDED.password_hash,
       updated_at = EXCLUDED.updated_at
 WHERE users.subscription_status = 'pending'
RETURNING id, billing_customer_id`;

/**
 * `POST /v1/api/checkout`: a pending account (or the pending one of that email, with the new plan and password)
 * and a checkout at the billing provider. An email with any other account answers 409 and changes nothing.
 * The password is hashed before the transaction opens, so no row lock waits on scrypt.
 */
export async function startCheckout(deps: GatewayDeps, options: SelfServiceOptions, input: CheckoutInput): Promise<{ checkout_id: string; url: string }> {
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  const now = deps.now();
  const checkoutId = newId('chk');
  const account = await transaction(deps.db.pool, async (client) => {
    const { rows } = await client.query<{ id: string; billing_customer_id: string | null }>(UPSERT_PENDING, [newId('usr'), email, input.plan, passwordHash, now]);
    const row = rows[0];
    if (!row) throw new AppError('already_exists', 'an account with this email already has a subscription: sign in instead');
    return row;
  });
  let started;
  try {
    started = await options.billing.startCheckout({
      checkoutId,
      accountId: account.id,
      email,
      plan: input.plan,
      customerId: account.billing_customer_id,
      successUrl: publicLink(options, `/checkout/${checkoutId}?status=success`),
      cancelUrl: publicLink(options, `/checkout/${checkoutId}?status=canceled`),
    });
  } catch (error) {
    // The pending account stays: a retried checkout reuses it.
    if (error instanceof BillingUnavailableError) throw new AppError('service_unavailable', 'the billing provider did not answer; nothing was charged, try again shortly');
    throw error;
  }
  const activate = options.billing.name === 'manual' && options.autoActivate;
  await transaction(deps.db.pool, async (client) => {
    await client.query(
      'INSERT INTO checkouts (id, user_id, plan_id, provider, provider_session_id, url, created_at, completed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [checkoutId, account.id, input.plan, options.billing.name, started.providerSessionId, started.url, now, activate ? now : null],
    );
    if (activate) {
      await client.query(
        `UPDATE users SET subscription_status = 'active', current_period_start = $2, current_period_end = $3, updated_at = $2
          WHERE id = $1 AND subscription_status = 'pending'`,
        [account.id, now, new Date(now.getTime() + MANUAL_PERIOD_DAYS * DAY_MS)],
      );
    }
  });
  return { checkout_id: checkoutId, url: started.url };
}

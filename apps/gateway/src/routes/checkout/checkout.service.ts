import { createHash, randomBytes } from 'node:crypto';
import { BillingUnavailableError } from '@hashwatch/billing';
import { newId, transaction } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import { switchPlanInTransaction, type PlanId } from '@hashwatch/plans';
import { hashPassword } from '@hashwatch/secrets';
import type { GatewayDeps } from '../../deps';
import { endSessions } from '../../sessions/session-store';
import { revokeOneTimeTokens } from '../../sessions/one-time-tokens';
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
 * Tells the address that a checkout was started with it, so its owner learns of a checkout they did not start (and
 * that any earlier one's password, sessions and links are void). Sent after the commit, never blocking the answer.
 */
function mailCheckoutStarted(deps: GatewayDeps, options: SelfServiceOptions, to: string): void {
  if (!options.mailer) return;
  const text = [
    'A Hashwatch checkout was started with this email address.',
    '',
    'Its password is now the one chosen in that checkout: any earlier checkout of this address, its sessions and',
    'its password-reset links no longer work. If you did not start it, do not pay for it; ask for a password reset',
    `at ${publicLink(options, '/reset-password')} once you want the account.`,
  ].join('\n');
  options.mailer.send({ to, subject: 'A Hashwatch checkout was started with your email', text }).catch((error: unknown) => {
    deps.logger.error('checkout mail failed', { error: error instanceof Error ? error.message : String(error) });
  });
}

const ALREADY_SUBSCRIBED = 'an account with this email already has a subscription: sign in instead';

/**
 * Before a pending account takes a new plan and password, its earlier checkouts stop being payable: otherwise whoever
 * checked out last would hold the password of an account someone else then paid for on an older page. One that was
 * paid meanwhile (its event not handled yet) makes this checkout a 409, as for any subscribed account.
 */
async function closeEarlierCheckouts(deps: GatewayDeps, options: SelfServiceOptions, email: string, expected: 'pending' | 'canceled', refusal: string): Promise<void> {
  const { rows } = await deps.db.pool.query<{ id: string; status: string; provider_session_id: string | null }>(
    `SELECT c.id, u.subscription_status AS status, c.provider_session_id
       FROM users u LEFT JOIN checkouts c ON c.user_id = u.id AND c.completed_at IS NULL AND c.provider_session_id IS NOT NULL
      WHERE u.email = $1`,
    [email],
  );
  if (rows.some((row) => row.status !== expected)) throw new AppError('already_exists', refusal);
  for (const row of rows) {
    if (!row.provider_session_id) continue;
    const outcome = await options.billing.closeCheckout(row.provider_session_id);
    if (outcome === 'completed') throw new AppError('already_exists', refusal);
    // Closed for good: nothing can complete it any more.
    await deps.db.pool.query('DELETE FROM checkouts WHERE id = $1 AND completed_at IS NULL', [row.id]);
  }
}

/**
 * `POST /v1/api/checkout`: a pending account (or the pending one of that email, with the new plan and password)
 * and a checkout at the billing provider. An email with any other account answers 409 and changes nothing.
 * The password is hashed before the transaction opens, so no row lock waits on scrypt.
 */
export async function startCheckout(deps: GatewayDeps, options: SelfServiceOptions, input: CheckoutInput): Promise<{ checkout_id: string; url: string }> {
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  return oneCheckoutPerEmail(deps, email, () => checkoutInTurn(deps, options, input, email, passwordHash));
}

/** How long a checkout waits for another of the same email before answering 503: a checkout takes a few seconds. */
const CHECKOUT_LOCK_WAIT_MS = 20_000;
const CHECKOUT_LOCK_POLL_MS = 50;
/** A lock outlives a gateway killed while it held it by at most this long (longer than any checkout's provider calls). */
const CHECKOUT_LOCK_TTL_MS = 60_000;

// Deletes the lock only while it is still this holder's (one that expired and was taken since stays).
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Runs `work` while holding a lock of this email in Redis. Two checkouts of one pending email at the same moment
 * would otherwise each close the pages open before them, and then each open its own: two payable pages, one of them
 * for a password its payer no longer holds. In turn, the second closes the first's page (or finds it paid: 409).
 * The lock is in Redis rather than a PostgreSQL session lock so that a waiting checkout holds no connection of the
 * gateway's pool, which the work itself needs; it expires if the gateway dies holding it.
 */
async function oneCheckoutPerEmail<T>(deps: GatewayDeps, email: string, work: () => Promise<T>): Promise<T> {
  const key = `${deps.keyPrefix}:checkout-lock:${createHash('sha256').update(email).digest('base64url')}`;
  const token = randomBytes(12).toString('base64url');
  const deadline = Date.now() + CHECKOUT_LOCK_WAIT_MS;
  while ((await deps.redis.set(key, token, 'PX', CHECKOUT_LOCK_TTL_MS, 'NX')) !== 'OK') {
    if (Date.now() >= deadline) throw new AppError('service_unavailable', 'another checkout of this email is still under way; try again shortly');
    await new Promise((resolve) => setTimeout(resolve, CHECKOUT_LOCK_POLL_MS));
  }
  try {
    return await work();
  } finally {
    await deps.redis.eval(UNLOCK, 1, key, token).catch(() => undefined);
  }
}

async function checkoutInTurn(
  deps: GatewayDeps,
  options: SelfServiceOptions,
  input: CheckoutInput,
  email: string,
  passwordHash: string,
): Promise<{ checkout_id: string; url: string }> {
  await unlessBillingDown('nothing was changed', () => closeEarlierCheckouts(deps, options, email, 'pending', ALREADY_SUBSCRIBED));
  const now = deps.now();
  const account = await transaction(deps.db.pool, async (client) => {
    const { rows } = await client.query<{ id: string; billing_customer_id: string | null }>(UPSERT_PENDING, [newId('usr'), email, input.plan, passwordHash, now]);
    const row = rows[0];
    if (!row) throw new AppError('already_exists', ALREADY_SUBSCRIBED);
    // The password just changed: whoever held the old one (an earlier checkout of this email by someone else) keeps
    // no session, no pending 2FA step and no reset link of the account the email's owner is about to pay for.
    await endSessions(client, row.id);
    await revokeOneTimeTokens(client, row.id);
    return row;
  });
  mailCheckoutStarted(deps, options, email);
  // The pending account stays when the provider does not answer: a retried checkout reuses it.
  return openCheckout(deps, options, { accountId: account.id, email, plan: input.plan, customerId: account.billing_customer_id, from: 'pending', now });
}

/** Runs a step that calls the billing provider; its silence is a 503 saying what `unchanged` states. */
async function unlessBillingDown<T>(unchanged: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof BillingUnavailableError) throw new AppError('service_unavailable', `the billing provider did not answer; ${unchanged}, try again shortly`);
    throw error;
  }
}

interface OpenCheckoutInput {
  accountId: string;
  email: string;
  plan: PlanId;
  customerId: string | null;
  /** The status the account has while it checks out; auto-activation (manual billing) applies only from it. */
  from: 'pending' | 'canceled';
  now: Date;
}

/**
 * The provider's checkout page for the account, and its row in `checkouts`. Under manual billing with
 * BILLING_AUTO_ACTIVATE the checkout is complete at once: the account takes the plan and is active for 30 days.
 */
async function openCheckout(deps: GatewayDeps, options: SelfServiceOptions, input: OpenCheckoutInput): Promise<{ checkout_id: string; url: string }> {
  const checkoutId = newId('chk');
  const started = await unlessBillingDown('nothing was charged', () =>
    options.billing.startCheckout({
      checkoutId,
      accountId: input.accountId,
      email: input.email,
      plan: input.plan,
      customerId: input.customerId,
      successUrl: publicLink(options, `/checkout/${checkoutId}?status=success`),
      cancelUrl: publicLink(options, `/checkout/${checkoutId}?status=canceled`),
    }),
  );
  const activate = options.billing.name === 'manual' && options.autoActivate;
  const { now } = input;
  await transaction(deps.db.pool, async (client) => {
    await client.query(
      'INSERT INTO checkouts (id, user_id, plan_id, provider, provider_session_id, url, created_at, completed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [checkoutId, input.accountId, input.plan, options.billing.name, started.providerSessionId, started.url, now, activate ? now : null],
    );
    // A pending account took the plan with its snapshot already. A returning one takes it now under manual billing
    // (with the scheduler signal of a plan switch), so the operator's activation finds it; Stripe's events bring it.
    if (input.from === 'canceled' && options.billing.name === 'manual') await switchPlanInTransaction(client, input.accountId, input.plan, now);
    if (!activate) return;
    await client.query(
      `UPDATE users SET subscription_status = 'active', current_period_start = $2, current_period_end = $3, updated_at = $2
        WHERE id = $1 AND subscription_status = $4::subscription_status`,
      [input.accountId, now, new Date(now.getTime() + MANUAL_PERIOD_DAYS * DAY_MS), input.from],
    );
  });
  return { checkout_id: checkoutId, url: started.url };
}

const NOT_CANCELED = 'this account’s subscription is not canceled: change the plan or pay from the billing portal (POST /v1/billing/portal)';

/**
 * `POST /v1/billing/checkout`: a new subscription for an account whose subscription was canceled, keeping the account
 * and everything in it. Stripe's customer portal cannot restart a canceled subscription, so this is the way back.
 * Any other status answers 409 (a live subscription is changed in the portal; a second one would bill twice). The
 * provider's events activate the account when it is paid.
 */
export async function restartSubscription(deps: GatewayDeps, options: SelfServiceOptions, userId: string, plan: PlanId): Promise<{ checkout_id: string; url: string }> {
  const { rows } = await deps.db.pool.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId]);
  const email = rows[0]?.email;
  if (!email) throw new AppError('unauthorized', 'the account no longer exists');
  return oneCheckoutPerEmail(deps, email, async () => {
    await unlessBillingDown('nothing was changed', () => closeEarlierCheckouts(deps, options, email, 'canceled', NOT_CANCELED));
    const { rows: current } = await deps.db.pool.query<{ billing_customer_id: string | null }>(
      `SELECT billing_customer_id FROM users WHERE id = $1 AND subscription_status = 'canceled'`,
      [userId],
    );
    if (!current[0]) throw new AppError('already_exists', NOT_CANCELED);
    return openCheckout(deps, options, { accountId: userId, email, plan, customerId: current[0].billing_customer_id, from: 'canceled', now: deps.now() });
  });
}

import type pg from 'pg';
import { transaction } from '@hashwatch/db';
import { switchPlanInTransaction } from '@hashwatch/plans';
import type { EventFacts, SubscriptionFacts } from './stripe-event-facts';

export type WebhookOutcome = 'applied' | 'duplicate' | 'ignored';

export const PROVIDER = 'stripe';

interface LockedAccount {
  id: string;
  plan_id: string;
  billing_subscription_id: string | null;
}

const LOCK_BY = {
  id: 'id',
  subscription: 'billing_subscription_id',
  customer: 'billing_customer_id',
} as const;

/** True when the event id was handled before (a cheap look before reading Stripe; the insert decides). */
export async function alreadyHandled(pool: pg.Pool, eventId: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM billing_events WHERE provider = $1 AND event_id = $2', [PROVIDER, eventId]);
  return (rowCount ?? 0) > 0;
}

/**
 * The account the event is about, locked for this transaction: by the account id the checkout or the
 * subscription's metadata carries, else by the subscription, else by the customer. Null when none exists (never
 * created here, or erased since).
 */
async function lockAccount(client: pg.PoolClient, facts: EventFacts): Promise<LockedAccount | null> {
  const candidates: [keyof typeof LOCK_BY, string | null | undefined][] = [
    ['id', facts.subscription?.accountId],
    ['id', facts.accountId],
    ['subscription', facts.subscription?.id],
    ['customer', facts.customerId ?? facts.subscription?.customerId],
  ];
  for (const [by, value] of candidates) {
    if (!value) continue;
    const { rows } = await client.query<LockedAccount>(
      `SELECT id, plan_id, billing_subscription_id FROM users WHERE ${LOCK_BY[by]} = $1 FOR UPDATE`,
      [value],
    );
    if (rows[0]) return rows[0];
  }
  return null;
}

/**
 * An ended subscription that is not the account's own: the account moved on to another one (a new checkout after
 * a cancel), and a late event about the old one must not cancel the new.
 */
function isFormerSubscription(account: LockedAccount, subscription: SubscriptionFacts | null): boolean {
  return subscription !== null && subscription.status === 'canceled' && account.billing_subscription_id !== null && account.billing_subscription_id !== subscription.id;
}

async function applyFacts(client: pg.PoolClient, account: LockedAccount, facts: EventFacts, now: Date): Promise<void> {
  const subscription = facts.subscription;
  await client.query(
    `UPDATE users
        SET billing_customer_id = COALESCE($2, billing_customer_id),
            billing_subscription_id = COALESCE($3, billing_subscription_id),
            subscription_status = COALESCE($4::subscription_status, subscription_status),
            current_period_start = COALESCE($5, current_period_start),
            current_period_end = COALESCE($6, current_period_end),
            updated_at = $7
      WHERE id = $1`,
    [account.id, facts.customerId ?? subscription?.customerId ?? null, subscription?.id ?? null, subscription?.status ?? null, subscription?.periodStart ?? null, subscription?.periodEnd ?? null, now],
  );
  // A new plan takes a fresh snapshot of its limits and tells the schedulers, in this same transaction.
  if (subscription?.planId && subscription.planId !== account.plan_id) await switchPlanInTransaction(client, account.id, subscription.planId, now);
  if (facts.checkout) {
    await client.query(
      `UPDATE checkouts SET completed_at = $2
        WHERE user_id = $1 AND completed_at IS NULL AND (provider_session_id = $3 OR id = $4)`,
      [account.id, now, facts.checkout.sessionId, facts.checkout.checkoutId],
    );
  }
}

/**
 * Records the event id and applies its facts in one transaction: a second delivery of the id finds the record and
 * changes nothing, and a failure while applying rolls the record back with everything else, so Stripe's retry
 * applies the event again. An event without facts, or for no account, is recorded and ignored.
 */
export async function recordAndApply(pool: pg.Pool, event: { id: string; type: string }, facts: EventFacts | null, now: Date): Promise<WebhookOutcome> {
  return transaction(pool, async (client) => {
    const recorded = await client.query(
      `INSERT INTO billing_events (provider, event_id, type, processed_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [PROVIDER, event.id, event.type, now],
    );
    if (recorded.rowCount === 0) return 'duplicate';
    if (!facts) return 'ignored';
    const account = await lockAccount(client, facts);
    if (!account || isFormerSubscription(account, facts.subscription)) return 'ignored';
    await applyFacts(client, account, facts, now);
    return 'applied';
  });
}

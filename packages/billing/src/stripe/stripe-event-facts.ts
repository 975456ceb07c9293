// What a Stripe event means for an account, read before any database transaction opens. Stripe does not promise
// to deliver events in order (https://docs.stripe.com/webhooks#event-ordering), so the state never comes from the
// event's own snapshot: every event that names a subscription re-reads it, and the account takes the
// subscription as Stripe holds it now. Delivered in any order, the last event handled leaves the current state.
import type Stripe from 'stripe';
import type { PlanId } from '@hashwatch/plans';
import { BillingUnavailableError } from '../provider';
import { describeStripeFailure, isResourceMissing } from './stripe-client';
import { parseStripeObject } from './stripe-errors';
import { checkoutSessionSchema, invoiceSchema, subscriptionSchema, type StripeEvent, type StripeSubscription } from './stripe-objects.schema';

/** Our subscription status for each of Stripe's. A paused subscription bills nothing and serves nothing until resumed. */
const STATUS = {
  active: 'active',
  trialing: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  paused: 'past_due',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
  incomplete: 'pending',
} as const satisfies Record<StripeSubscription['status'], 'pending' | 'active' | 'past_due' | 'canceled'>;

export type AccountSubscriptionStatus = (typeof STATUS)[keyof typeof STATUS];

/** A subscription as the account takes it. */
export interface SubscriptionFacts {
  id: string;
  customerId: string;
  /** `metadata.account_id`, which the checkout put on the subscription. */
  accountId: string | null;
  status: AccountSubscriptionStatus;
  /** The billed item's period; null when the subscription has no item. */
  periodStart: Date | null;
  periodEnd: Date | null;
  /** The plan whose price the billed item has; null for a price that is none of ours. */
  planId: PlanId | null;
}

export interface EventFacts {
  /** The account a checkout names (`client_reference_id`, else `metadata.account_id`). */
  accountId: string | null;
  customerId: string | null;
  subscription: SubscriptionFacts | null;
  /** A completed checkout: Stripe's session id and ours (`metadata.checkout_id`). */
  checkout: { sessionId: string; checkoutId: string | null } | null;
}

export interface FactReader {
  stripe: Stripe;
  /** Price id → plan, the reverse of `createStripeBilling`'s `prices`. */
  planOfPrice: ReadonlyMap<string, PlanId>;
}

const fromUnix = (seconds: number) => new Date(seconds * 1000);

function subscriptionFacts(reader: FactReader, subscription: StripeSubscription): SubscriptionFacts {
  const items = subscription.items.data;
  // The item whose price is one of our plans is the one billed for Hashwatch; a subscription has just that one.
  const item = items.find((candidate) => reader.planOfPrice.has(candidate.price.id)) ?? items[0];
  return {
    id: subscription.id,
    customerId: subscription.customer,
    accountId: subscription.metadata.account_id ?? null,
    status: STATUS[subscription.status],
    periodStart: item ? fromUnix(item.current_period_start) : null,
    periodEnd: item ? fromUnix(item.current_period_end) : null,
    planId: item ? (reader.planOfPrice.get(item.price.id) ?? null) : null,
  };
}

/**
 * The subscription as Stripe holds it now. One Stripe no longer knows yields `fallback` (the event's own snapshot)
 * or null; any other failure throws {@link BillingUnavailableError}, so the event is retried later.
 */
async function currentSubscription(reader: FactReader, id: string, fallback: StripeSubscription | null): Promise<SubscriptionFacts | null> {
  let retrieved: unknown;
  try {
    retrieved = await reader.stripe.subscriptions.retrieve(id);
  } catch (error) {
    if (isResourceMissing(error)) return fallback && subscriptionFacts(reader, fallback);
    throw new BillingUnavailableError(`Stripe could not read the subscription (${describeStripeFailure(error)})`);
  }
  return subscriptionFacts(reader, parseStripeObject(subscriptionSchema, retrieved, 'subscription'));
}

async function checkoutCompleted(reader: FactReader, object: unknown): Promise<EventFacts | null> {
  const session = parseStripeObject(checkoutSessionSchema, object, 'checkout.session');
  if (session.mode !== 'subscription') return null;
  const subscription = session.subscription ? await currentSubscription(reader, session.subscription, null) : null;
  return {
    accountId: session.client_reference_id ?? session.metadata.account_id ?? null,
    customerId: session.customer ?? null,
    subscription,
    checkout: { sessionId: session.id, checkoutId: session.metadata.checkout_id ?? null },
  };
}

async function subscriptionChanged(reader: FactReader, object: unknown, deleted: boolean): Promise<EventFacts | null> {
  const snapshot = parseStripeObject(subscriptionSchema, object, 'subscription');
  const subscription = await currentSubscription(reader, snapshot.id, snapshot);
  if (!subscription) return null;
  // A deleted subscription stays deleted, whatever was read.
  const current = deleted ? { ...subscription, status: 'canceled' as const } : subscription;
  return { accountId: null, customerId: current.customerId, subscription: current, checkout: null };
}

async function invoiceSettled(reader: FactReader, object: unknown): Promise<EventFacts | null> {
  const invoice = parseStripeObject(invoiceSchema, object, 'invoice');
  const subscriptionId = invoice.parent?.subscription_details?.subscription;
  // An invoice outside a subscription bills nothing of ours.
  if (!subscriptionId) return null;
  const subscription = await currentSubscription(reader, subscriptionId, null);
  if (!subscription) return null;
  return { accountId: null, customerId: invoice.customer ?? subscription.customerId, subscription, checkout: null };
}

/** The facts of an event this integration handles; null for any other event (recorded, then ignored). */
export async function readEventFacts(reader: FactReader, event: StripeEvent): Promise<EventFacts | null> {
  const object = event.data.object;
  switch (event.type) {
    case 'checkout.session.completed':
      return checkoutCompleted(reader, object);
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
      return subscriptionChanged(reader, object, false);
    case 'customer.subscription.deleted':
      return subscriptionChanged(reader, object, true);
    case 'invoice.paid':
    case 'invoice.payment_failed':
      return invoiceSettled(reader, object);
    default:
      return null;
  }
}

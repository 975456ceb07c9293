// The objects the local Stripe server keeps, in the shapes Stripe's API reference gives them for the API version
// the `stripe` SDK pins (2026-10-28.endive): since 2025-03-31.basil a subscription's period is on each of its
// items (`items.data[].current_period_start/end`), and an invoice names its subscription under
// `parent.subscription_details`. Only the fields a billing integration reads, and the ones that say what an
// object is, are kept; Stripe's own objects carry many more.
import { randomBytes } from 'node:crypto';

export type Metadata = Record<string, string>;

export interface PriceObject {
  id: string;
  object: 'price';
  active: boolean;
  created: number;
  currency: string;
  livemode: false;
  metadata: Metadata;
  product: string;
  recurring: { interval: 'month'; interval_count: 1; usage_type: 'licensed' };
  type: 'recurring';
  unit_amount: number;
}

export interface CustomerObject {
  id: string;
  object: 'customer';
  created: number;
  email: string | null;
  livemode: false;
  metadata: Metadata;
  name: string | null;
}

export interface CheckoutSessionObject {
  id: string;
  object: 'checkout.session';
  amount_subtotal: number;
  amount_total: number;
  cancel_url: string | null;
  client_reference_id: string | null;
  created: number;
  currency: string;
  customer: string | null;
  customer_email: string | null;
  expires_at: number;
  livemode: false;
  metadata: Metadata;
  mode: 'payment' | 'setup' | 'subscription';
  payment_status: 'paid' | 'unpaid' | 'no_payment_required';
  status: 'open' | 'complete' | 'expired';
  subscription: string | null;
  success_url: string | null;
  /** The hosted page; null once the session is complete or expired. */
  url: string | null;
}

export interface SubscriptionItemObject {
  id: string;
  object: 'subscription_item';
  created: number;
  current_period_end: number;
  current_period_start: number;
  discounts: string[];
  metadata: Metadata;
  price: PriceObject;
  quantity: number;
  subscription: string;
  tax_rates: unknown[];
}

export type SubscriptionStatus = 'incomplete' | 'incomplete_expired' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'unpaid' | 'paused';

export interface SubscriptionObject {
  id: string;
  object: 'subscription';
  billing_cycle_anchor: number;
  cancel_at: number | null;
  cancel_at_period_end: boolean;
  canceled_at: number | null;
  collection_method: 'charge_automatically';
  created: number;
  currency: string;
  customer: string;
  ended_at: number | null;
  items: { object: 'list'; data: SubscriptionItemObject[]; has_more: false; total_count: number; url: string };
  latest_invoice: string | null;
  livemode: false;
  metadata: Metadata;
  start_date: number;
  status: SubscriptionStatus;
}

export interface InvoiceObject {
  id: string;
  object: 'invoice';
  amount_due: number;
  amount_paid: number;
  amount_remaining: number;
  attempt_count: number;
  attempted: boolean;
  billing_reason: 'subscription_create' | 'subscription_cycle' | 'subscription_update';
  created: number;
  currency: string;
  customer: string;
  livemode: false;
  parent: {
    type: 'subscription_details';
    quote_details: null;
    subscription_details: { metadata: Metadata; subscription: string };
  };
  period_end: number;
  period_start: number;
  status: 'draft' | 'open' | 'paid' | 'uncollectible' | 'void';
}

export interface PortalSessionObject {
  id: string;
  object: 'billing_portal.session';
  configuration: string;
  created: number;
  customer: string;
  flow: null;
  livemode: false;
  locale: null;
  on_behalf_of: null;
  return_url: string | null;
  url: string;
}

export type StripeObject = PriceObject | CustomerObject | CheckoutSessionObject | SubscriptionObject | InvoiceObject | PortalSessionObject;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** An id as Stripe makes them: a prefix naming the kind of object (`sub_`, `cs_test_`) and random base62. */
export function stripeId(prefix: string, length = 24): string {
  let id = '';
  for (const byte of randomBytes(length)) id += ALPHABET[byte % ALPHABET.length];
  return `${prefix}_${id}`;
}

/**
 * An error as Stripe's API answers it: the HTTP status and the body `{error: {type, code, message, param}}`
 * (https://docs.stripe.com/api/errors). `code` and `param` are left out where Stripe leaves them out.
 */
export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: 'invalid_request_error' | 'api_error' | 'idempotency_error',
    message: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'StripeApiError';
  }

  body(): { error: { type: string; message: string; code?: string; param?: string; doc_url?: string } } {
    return {
      error: {
        type: this.type,
        message: this.message,
        ...(this.code ? { code: this.code, doc_url: `https://docs.stripe.com/error-codes/${this.code.replace(/_/g, '-')}` } : {}),
        ...(this.param ? { param: this.param } : {}),
      },
    };
  }
}

/**
 * `resource_missing`, as Stripe answers an id it does not know: 404 for the object the path names, 400 for one a
 * parameter names.
 */
export function noSuch(kind: string, id: string, param = 'id', status = 404): StripeApiError {
  return new StripeApiError(status, 'invalid_request_error', `No such ${kind}: '${id}'`, 'resource_missing', param);
}

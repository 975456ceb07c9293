// What this integration reads of Stripe's objects, for the API version the `stripe` SDK pins (2026-10-28.endive,
// the SDK's default; nothing here overrides it). Since 2025-03-31.basil a subscription's billing period lives on
// its items (`items.data[].current_period_start/end`), not on the subscription, and an invoice names its
// subscription under `parent.subscription_details.subscription`. Unknown fields are dropped; ids are not checked
// against their prefixes, which Stripe may change without a new API version.
import { z } from 'zod';

const id = z.string().min(1);
/** A reference Stripe may expand into the object it names (`customer: 'cus_…'` or `customer: {id: 'cus_…', …}`). */
const expandable = z.union([id, z.looseObject({ id })]).transform((value) => (typeof value === 'string' ? value : value.id));
const metadata = z
  .record(z.string(), z.string())
  .nullish()
  .transform((value) => value ?? {});
const unixSeconds = z.number().int().nonnegative();

/** https://docs.stripe.com/api/events/object: the envelope; `data.object` is read by the event's type. */
export const eventSchema = z.object({
  id,
  object: z.literal('event'),
  type: z.string().min(1),
  created: unixSeconds,
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

/** https://docs.stripe.com/api/checkout/sessions/object */
export const checkoutSessionSchema = z.object({
  id,
  object: z.literal('checkout.session'),
  mode: z.string(),
  status: z.enum(['open', 'complete', 'expired']).nullish(),
  url: z.string().nullish(),
  client_reference_id: z.string().nullish(),
  customer: expandable.nullish(),
  subscription: expandable.nullish(),
  metadata,
});

/** Stripe's subscription statuses (https://docs.stripe.com/api/subscriptions/object#subscription_object-status). */
export const stripeSubscriptionStatusSchema = z.enum(['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused']);

/** https://docs.stripe.com/api/subscriptions/object, with its items' periods and prices. */
export const subscriptionSchema = z.object({
  id,
  object: z.literal('subscription'),
  status: stripeSubscriptionStatusSchema,
  customer: expandable,
  metadata,
  items: z.object({
    data: z.array(
      z.object({
        price: z.object({ id }),
        current_period_start: unixSeconds,
        current_period_end: unixSeconds,
      }),
    ),
  }),
});

/** https://docs.stripe.com/api/invoices/object */
export const invoiceSchema = z.object({
  id,
  object: z.literal('invoice'),
  customer: expandable.nullish(),
  parent: z
    .object({
      subscription_details: z.object({ subscription: expandable, metadata }).nullish(),
    })
    .nullish(),
});

/** https://docs.stripe.com/api/customer_portal/sessions/object */
export const portalSessionSchema = z.object({
  id,
  object: z.literal('billing_portal.session'),
  url: z.url(),
});

export type StripeEvent = z.infer<typeof eventSchema>;
export type StripeSubscription = z.infer<typeof subscriptionSchema>;

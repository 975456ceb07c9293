// The endpoints the local Stripe server plays, each with its parameters checked by a zod schema the way Stripe
// checks them: a missing one is 400 `parameter_missing`, a wrong one 400 `parameter_invalid`, both naming the
// parameter in bracket notation. Parameters Stripe knows but the server does not play are accepted and ignored.
import { z } from 'zod';
import type { StripeAccount } from './stripe-account';
import type { SignedEvent, StripeEvents } from './stripe-events';
import type { ApiCall, ApiRoute } from './stripe-http';
import { noSuch, StripeApiError } from './stripe-objects';

const metadata = z.record(z.string(), z.string().max(500));
const flag = z.enum(['true', 'false']).transform((value) => value === 'true');
const count = z.coerce.number().int().min(1);

const checkoutParams = z.looseObject({
  mode: z.enum(['payment', 'setup', 'subscription']),
  line_items: z.array(z.looseObject({ price: z.string().min(1), quantity: count.default(1) })).optional(),
  success_url: z.string().optional(),
  cancel_url: z.string().optional(),
  client_reference_id: z.string().min(1).max(200).optional(),
  customer: z.string().min(1).optional(),
  customer_email: z.string().min(1).optional(),
  metadata: metadata.optional(),
  subscription_data: z.looseObject({ metadata: metadata.optional() }).optional(),
});

const portalParams = z.looseObject({ customer: z.string().min(1), return_url: z.string().optional() });

const subscriptionUpdateParams = z.looseObject({
  items: z.array(z.looseObject({ id: z.string().min(1).optional(), price: z.string().min(1).optional(), quantity: count.optional() })).optional(),
  metadata: metadata.optional(),
  cancel_at_period_end: flag.optional(),
});

function bracketed(path: readonly PropertyKey[]): string {
  const [first, ...rest] = path.map(String);
  return `${first ?? ''}${rest.map((part) => `[${part}]`).join('')}`;
}

function valueAt(form: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = form;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function parse<T>(schema: z.ZodType<T>, form: Record<string, unknown>): T {
  const parsed = schema.safeParse(form);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = bracketed(issue?.path ?? []);
  if (valueAt(form, issue?.path ?? []) === undefined) {
    throw new StripeApiError(400, 'invalid_request_error', `Missing required param: ${param}.`, 'parameter_missing', param);
  }
  throw new StripeApiError(400, 'invalid_request_error', `Invalid ${param}: ${issue?.message ?? 'not valid'}`, 'parameter_invalid', param);
}

/** The JSON object of an event the account produced, as `GET /v1/events/:id` answers it. */
function eventObject(events: StripeEvents, id: string): unknown {
  const event = events.created.find((candidate) => candidate.id === id);
  if (!event) throw noSuch('event', id);
  return JSON.parse(event.payload) as unknown;
}

export function stripeRoutes(account: StripeAccount, events: StripeEvents): ApiRoute[] {
  const caused = (call: ApiCall) => ({ id: call.requestId, idempotencyKey: call.idempotencyKey });
  const later = (...produced: SignedEvent[]) => events.deliverLater(produced);
  return [
    { method: 'POST', path: /^\/v1\/checkout\/sessions$/, handle: (call) => account.createCheckoutSession(parse(checkoutParams, call.form)) },
    { method: 'GET', path: /^\/v1\/checkout\/sessions\/([^/]+)$/, handle: (call) => account.session(call.params[0] ?? '') },
    { method: 'POST', path: /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/, handle: (call) => account.expireSession(call.params[0] ?? '') },
    { method: 'POST', path: /^\/v1\/billing_portal\/sessions$/, handle: (call) => account.createPortalSession(parse(portalParams, call.form)) },
    { method: 'GET', path: /^\/v1\/customers\/([^/]+)$/, handle: (call) => account.customer(call.params[0] ?? '') },
    { method: 'GET', path: /^\/v1\/subscriptions\/([^/]+)$/, handle: (call) => account.subscription(call.params[0] ?? '') },
    {
      method: 'POST',
      path: /^\/v1\/subscriptions\/([^/]+)$/,
      handle: (call) => {
        const change = account.updateSubscription(call.params[0] ?? '', parse(subscriptionUpdateParams, call.form));
        if (Object.keys(change.previous).length > 0) later(events.create('customer.subscription.updated', change.object, change.previous, caused(call)));
        return change.object;
      },
    },
    {
      method: 'DELETE',
      path: /^\/v1\/subscriptions\/([^/]+)$/,
      handle: (call) => {
        const change = account.cancelSubscription(call.params[0] ?? '');
        later(events.create('customer.subscription.deleted', change.object, change.previous, caused(call)));
        return change.object;
      },
    },
    { method: 'GET', path: /^\/v1\/invoices\/([^/]+)$/, handle: (call) => account.invoice(call.params[0] ?? '') },
    { method: 'GET', path: /^\/v1\/events\/([^/]+)$/, handle: (call) => eventObject(events, call.params[0] ?? '') },
  ];
}

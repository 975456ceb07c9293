import { StripeAccount } from './stripe-account';
import { StripeEvents, type Delivery, type SignedEvent } from './stripe-events';
import { StripeHttp, type FaultRule, type ReceivedStripeRequest } from './stripe-http';
import type { CheckoutSessionObject, CustomerObject, SubscriptionObject } from './stripe-objects';
import { stripePages } from './stripe-pages';
import { stripeRoutes } from './stripe-routes';

/** The price ids the server knows unless told others: one per Hashwatch plan, to pass as `createStripeBilling`'s `prices`. */
export const TEST_PRICES = { starter: 'price_test_starter', pro: 'price_test_pro', business: 'price_test_business' } as const;

export interface StripeFixtureOptions {
  /** The only API key the server accepts (`Authorization: Bearer …`). Default `sk_test_hashwatch_local`. */
  secretKey?: string;
  /** The secret every event is signed with. Default `whsec_hashwatch_local`. */
  webhookSecret?: string;
  /** Where each event is POSTed, as Stripe posts to a webhook endpoint; without it events are only returned. */
  webhookUrl?: string;
  /** The recurring prices that exist. Default the three of {@link TEST_PRICES}. */
  prices?: readonly string[];
  /** The server's clock, for objects' timestamps and subscription periods. Default the real clock. */
  now?: () => Date;
  /** Length of a subscription period. Default 30 days. */
  periodDays?: number;
  /** How long a delivery waits for the endpoint. Default 10 s. */
  deliveryTimeoutMs?: number;
}

/** Events a test control produced (as Stripe would have sent them), and their deliveries when there is a webhook URL. */
export interface ProducedEvents {
  events: SignedEvent[];
  deliveries: Delivery[];
}

export interface CompletedCheckout extends ProducedEvents {
  customerId: string;
  subscriptionId: string;
  invoiceId: string;
}

/** A local server that speaks Stripe's API, and the controls that play what a customer does on Stripe's pages. */
export interface StripeFixture {
  /** `http://127.0.0.1:<port>`: `createStripeBilling`'s `apiBaseUrl`. */
  readonly origin: string;
  readonly secretKey: string;
  readonly webhookSecret: string;
  readonly prices: readonly string[];
  /** Every API request received, oldest first, with its parsed form body. */
  readonly requests: readonly ReceivedStripeRequest[];
  /** Every event produced, oldest first. */
  readonly events: readonly SignedEvent[];
  /** Every delivery to the webhook URL, in the order they were answered. */
  readonly deliveries: readonly Delivery[];
  /** Copies of stored objects; each throws for an unknown id. */
  checkoutSession(id: string): CheckoutSessionObject;
  subscription(id: string): SubscriptionObject;
  customer(id: string): CustomerObject;
  /**
   * The person pays: a customer (unless the session named one), an active subscription with a period and its paid
   * invoice; the session is complete. Events: `customer.created` (new customers only), `checkout.session.completed`,
   * `customer.subscription.created`, `invoice.paid`.
   */
  completeCheckout(sessionId: string): Promise<CompletedCheckout>;
  /** The customer switches price in the portal: `customer.subscription.updated` with the old items as previous_attributes. */
  changePlan(subscriptionId: string, priceId: string): Promise<ProducedEvents>;
  /** A renewal's payment fails: a new period, an open invoice, past_due. Events: `invoice.payment_failed`, `customer.subscription.updated`. */
  failPayment(subscriptionId: string): Promise<ProducedEvents>;
  /** A renewal is paid: a new period, active. Events: `invoice.paid`, `customer.subscription.updated`. */
  renew(subscriptionId: string): Promise<ProducedEvents>;
  /** The customer cancels in the portal, at once: `customer.subscription.deleted`. */
  cancel(subscriptionId: string): Promise<ProducedEvents>;
  /** POSTs an event to the webhook URL again (signed anew) and answers how that went. */
  redeliver(eventId: string): Promise<Delivery>;
  /** Makes matching API requests fail (or wait) until {@link clearFaults}, or `times` of them. */
  fail(rule: FaultRule): void;
  clearFaults(): void;
  /** Resolves once the deliveries of events that API requests caused (a cancel through the API) have answers. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the server on a free loopback port; the caller closes it. */
export async function startStripeFixture(options: StripeFixtureOptions = {}): Promise<StripeFixture> {
  const secretKey = options.secretKey ?? 'sk_test_hashwatch_local';
  const webhookSecret = options.webhookSecret ?? 'whsec_hashwatch_local';
  const prices = options.prices ?? Object.values(TEST_PRICES);
  const now = options.now ?? (() => new Date());
  let origin = '';
  const account = new StripeAccount({ origin: () => origin, now, periodDays: options.periodDays ?? 30, prices });
  const events = new StripeEvents({ webhookSecret, webhookUrl: options.webhookUrl, now, deliveryTimeoutMs: options.deliveryTimeoutMs ?? 10_000 });

  const checkoutEvents = (sessionId: string) => {
    const done = account.completeCheckout(sessionId);
    const produced = [
      ...(done.createdCustomer ? [events.create('customer.created', done.customer)] : []),
      events.create('checkout.session.completed', done.session),
      events.create('customer.subscription.created', done.subscription),
      events.create('invoice.paid', done.invoice),
    ];
    return { done, produced };
  };
  const deliver = async (produced: SignedEvent[]): Promise<ProducedEvents> => ({ events: produced, deliveries: await events.deliverAll(produced) });

  const http = new StripeHttp(secretKey, stripeRoutes(account, events), stripePages(account, (sessionId) => events.deliverLater(checkoutEvents(sessionId).produced)));
  const server = await http.listen();
  origin = server.origin;

  return {
    origin,
    secretKey,
    webhookSecret,
    prices,
    requests: http.requests,
    events: events.created,
    deliveries: events.deliveries,
    checkoutSession: (id) => structuredClone(account.session(id)),
    subscription: (id) => structuredClone(account.subscription(id)),
    customer: (id) => structuredClone(account.customer(id)),
    async completeCheckout(sessionId) {
      const { done, produced } = checkoutEvents(sessionId);
      return { customerId: done.customer.id, subscriptionId: done.subscription.id, invoiceId: done.invoice.id, ...(await deliver(produced)) };
    },
    async changePlan(subscriptionId, priceId) {
      const subscription = account.subscription(subscriptionId);
      const item = subscription.items.data[0];
      const change = account.updateSubscription(subscriptionId, { items: [{ id: item?.id, price: priceId }] });
      return deliver([events.create('customer.subscription.updated', change.object, change.previous)]);
    },
    async failPayment(subscriptionId) {
      const { subscription, invoice } = account.failPayment(subscriptionId);
      return deliver([events.create('invoice.payment_failed', invoice), events.create('customer.subscription.updated', subscription.object, subscription.previous)]);
    },
    async renew(subscriptionId) {
      const { subscription, invoice } = account.renew(subscriptionId);
      return deliver([events.create('invoice.paid', invoice), events.create('customer.subscription.updated', subscription.object, subscription.previous)]);
    },
    async cancel(subscriptionId) {
      const change = account.cancelSubscription(subscriptionId);
      return deliver([events.create('customer.subscription.deleted', change.object, change.previous)]);
    },
    redeliver: (eventId) => events.redeliver(eventId),
    fail: (rule) => http.fail(rule),
    clearFaults: () => http.clearFaults(),
    idle: () => events.idle(),
    async close() {
      await events.idle();
      await server.close();
    },
  };
}

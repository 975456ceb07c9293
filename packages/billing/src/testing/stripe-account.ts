import {
  noSuch,
  StripeApiError,
  stripeId,
  type CheckoutSessionObject,
  type CustomerObject,
  type InvoiceObject,
  type Metadata,
  type PortalSessionObject,
  type PriceObject,
  type SubscriptionItemObject,
  type SubscriptionObject,
} from './stripe-objects';

const DAY_SECONDS = 86_400;

export interface LineItem {
  price: string;
  quantity: number;
}

/** The Checkout Session parameters the server plays (https://docs.stripe.com/api/checkout/sessions/create). */
export interface CheckoutParams {
  mode: 'payment' | 'setup' | 'subscription';
  line_items?: LineItem[] | undefined;
  success_url?: string | undefined;
  cancel_url?: string | undefined;
  client_reference_id?: string | undefined;
  customer?: string | undefined;
  customer_email?: string | undefined;
  metadata?: Metadata | undefined;
  subscription_data?: { metadata?: Metadata | undefined } | undefined;
}

/** The subscription update parameters the server plays (https://docs.stripe.com/api/subscriptions/update). */
export interface SubscriptionUpdate {
  items?: { id?: string | undefined; price?: string | undefined; quantity?: number | undefined }[] | undefined;
  metadata?: Metadata | undefined;
  cancel_at_period_end?: boolean | undefined;
}

/** An object after a change, and the values the change replaced: an event's `data.previous_attributes`. */
export interface Change<T> {
  object: T;
  previous: Record<string, unknown>;
}

export interface CompletedCheckout {
  session: CheckoutSessionObject;
  customer: CustomerObject;
  /** False when the session named an existing customer. */
  createdCustomer: boolean;
  subscription: SubscriptionObject;
  invoice: InvoiceObject;
}

export interface AccountOptions {
  /** The server's origin, known once it listens: hosted pages' addresses are built on it. */
  origin: () => string;
  now: () => Date;
  periodDays: number;
  prices: readonly string[];
}

function must<T>(map: Map<string, T>, kind: string, id: string, param?: string, status?: number): T {
  const found = map.get(id);
  if (!found) throw noSuch(kind, id, param, status);
  return found;
}

function mergeMetadata(current: Metadata, patch: Metadata | undefined): Metadata {
  const merged = { ...current };
  // Stripe unsets a key posted with an empty value.
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** One Stripe account's objects in test mode, and the state changes Stripe makes to them. */
export class StripeAccount {
  readonly prices = new Map<string, PriceObject>();
  readonly customers = new Map<string, CustomerObject>();
  readonly sessions = new Map<string, CheckoutSessionObject>();
  readonly subscriptions = new Map<string, SubscriptionObject>();
  readonly invoices = new Map<string, InvoiceObject>();
  readonly portalSessions = new Map<string, PortalSessionObject>();
  // A session's line items and subscription_data are not part of the session object (line items are a list
  // of their own in Stripe's API), but the subscription it creates is made from them.
  private readonly sessionOrders = new Map<string, { lineItems: LineItem[]; subscriptionMetadata: Metadata }>();

  constructor(private readonly options: AccountOptions) {
    const created = this.seconds();
    options.prices.forEach((id, index) => {
      this.prices.set(id, {
        id,
        object: 'price',
        active: true,
        created,
        currency: 'usd',
        livemode: false,
        metadata: {},
        product: stripeId('prod', 14),
        recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' },
        type: 'recurring',
        unit_amount: 1000 * (index + 1),
      });
    });
  }

  seconds(): number {
    return Math.floor(this.options.now().getTime() / 1000);
  }

  price(id: string, param = 'price'): PriceObject {
    return must(this.prices, 'price', id, param, 400);
  }

  customer(id: string): CustomerObject {
    return must(this.customers, 'customer', id);
  }

  session(id: string): CheckoutSessionObject {
    return must(this.sessions, 'checkout.session', id);
  }

  /** `POST /v1/checkout/sessions/:id/expire`: only an open session; its page stops working. */
  expireSession(id: string): CheckoutSessionObject {
    const session = this.session(id);
    if (session.status !== 'open') {
      throw new StripeApiError(400, 'invalid_request_error', `Only Checkout Sessions with a status of \`open\` can be expired. This session has a status of \`${session.status}\`.`);
    }
    Object.assign(session, { status: 'expired', url: null });
    return session;
  }

  subscription(id: string): SubscriptionObject {
    return must(this.subscriptions, 'subscription', id);
  }

  invoice(id: string): InvoiceObject {
    return must(this.invoices, 'invoice', id);
  }

  createCheckoutSession(params: CheckoutParams): CheckoutSessionObject {
    if (params.mode !== 'subscription') {
      throw new StripeApiError(400, 'invalid_request_error', `The local Stripe server plays subscription mode only, not mode=${params.mode}.`, 'parameter_invalid', 'mode');
    }
    const lineItems = params.line_items ?? [];
    if (lineItems.length === 0) {
      throw new StripeApiError(400, 'invalid_request_error', 'line_items is required in subscription mode.', 'parameter_missing', 'line_items');
    }
    if (params.customer !== undefined && params.customer_email !== undefined) {
      throw new StripeApiError(400, 'invalid_request_error', 'You may only specify one of these parameters: customer, customer_email.', 'parameter_invalid', 'customer_email');
    }
    if (params.customer !== undefined) must(this.customers, 'customer', params.customer, 'customer', 400);
    const amount = lineItems.reduce((sum, item, index) => sum + this.price(item.price, `line_items[${index}][price]`).unit_amount * item.quantity, 0);
    const id = stripeId('cs_test', 58);
    const created = this.seconds();
    const session: CheckoutSessionObject = {
      id,
      object: 'checkout.session',
      amount_subtotal: amount,
      amount_total: amount,
      cancel_url: params.cancel_url ?? null,
      client_reference_id: params.client_reference_id ?? null,
      created,
      currency: 'usd',
      customer: params.customer ?? null,
      customer_email: params.customer_email ?? null,
      expires_at: created + DAY_SECONDS,
      livemode: false,
      metadata: mergeMetadata({}, params.metadata),
      mode: 'subscription',
      payment_status: 'unpaid',
      status: 'open',
      subscription: null,
      success_url: params.success_url ?? null,
      url: `${this.options.origin()}/c/pay/${id}`,
    };
    this.sessions.set(id, session);
    this.sessionOrders.set(id, { lineItems, subscriptionMetadata: mergeMetadata({}, params.subscription_data?.metadata) });
    return session;
  }

  /** What Stripe does when the person pays: a customer (unless the session named one), an active subscription, its paid first invoice. */
  completeCheckout(sessionId: string): CompletedCheckout {
    const session = this.session(sessionId);
    const order = this.sessionOrders.get(sessionId);
    if (session.status !== 'open' || !order) throw new Error(`checkout session ${sessionId} is ${session.status}, not open`);
    const createdCustomer = session.customer === null;
    const customer = session.customer ? this.customer(session.customer) : this.createCustomer(session.customer_email);
    const subscription = this.createSubscription(customer.id, order.lineItems, order.subscriptionMetadata);
    const invoice = this.createInvoice(subscription, 'subscription_create', 'paid');
    Object.assign(session, { status: 'complete', payment_status: 'paid', customer: customer.id, subscription: subscription.id, url: null });
    return { session, customer, createdCustomer, subscription, invoice };
  }

  createPortalSession(params: { customer: string; return_url?: string | undefined }): PortalSessionObject {
    must(this.customers, 'customer', params.customer, 'customer', 400);
    const id = stripeId('bps', 24);
    const portal: PortalSessionObject = {
      id,
      object: 'billing_portal.session',
      configuration: 'bpc_local_default',
      created: this.seconds(),
      customer: params.customer,
      flow: null,
      livemode: false,
      locale: null,
      on_behalf_of: null,
      return_url: params.return_url ?? null,
      url: `${this.options.origin()}/p/session/${id}`,
    };
    this.portalSessions.set(id, portal);
    return portal;
  }

  updateSubscription(id: string, update: SubscriptionUpdate): Change<SubscriptionObject> {
    const subscription = this.subscription(id);
    if (subscription.status === 'canceled' && (update.items !== undefined || update.cancel_at_period_end !== undefined)) {
      throw new StripeApiError(400, 'invalid_request_error', 'A canceled subscription can only update its cancellation_details and metadata.');
    }
    const previous: Record<string, unknown> = {};
    if (update.items !== undefined) {
      previous.items = structuredClone(subscription.items);
      update.items.forEach((item, index) => this.updateItem(subscription, item, index));
    }
    if (update.metadata !== undefined) {
      previous.metadata = subscription.metadata;
      subscription.metadata = mergeMetadata(subscription.metadata, update.metadata);
    }
    if (update.cancel_at_period_end !== undefined && update.cancel_at_period_end !== subscription.cancel_at_period_end) {
      previous.cancel_at_period_end = subscription.cancel_at_period_end;
      previous.cancel_at = subscription.cancel_at;
      subscription.cancel_at_period_end = update.cancel_at_period_end;
      subscription.cancel_at = update.cancel_at_period_end ? (subscription.items.data[0]?.current_period_end ?? null) : null;
    }
    return { object: subscription, previous };
  }

  /** Cancels at once. Stripe keeps the canceled subscription readable, but answers a second cancel 404. */
  cancelSubscription(id: string): Change<SubscriptionObject> {
    const subscription = this.subscription(id);
    if (subscription.status === 'canceled') throw noSuch('subscription', id);
    const previous = { status: subscription.status };
    const now = this.seconds();
    Object.assign(subscription, { status: 'canceled', canceled_at: now, ended_at: now, cancel_at_period_end: false });
    return { object: subscription, previous };
  }

  /** A renewal whose payment fails: the period moves on, its invoice stays open and the subscription is past due. */
  failPayment(id: string): { subscription: Change<SubscriptionObject>; invoice: InvoiceObject } {
    return this.renewWith(id, 'open', 'past_due');
  }

  /** A renewal that is paid: the period moves on and the subscription is (again) active. */
  renew(id: string): { subscription: Change<SubscriptionObject>; invoice: InvoiceObject } {
    return this.renewWith(id, 'paid', 'active');
  }

  private renewWith(id: string, invoiceStatus: 'open' | 'paid', status: 'past_due' | 'active') {
    const subscription = this.subscription(id);
    if (subscription.status === 'canceled') throw new Error(`subscription ${id} is canceled`);
    const previous = { status: subscription.status, items: structuredClone(subscription.items) };
    for (const item of subscription.items.data) {
      const length = item.current_period_end - item.current_period_start;
      item.current_period_start = item.current_period_end;
      item.current_period_end += length;
    }
    const invoice = this.createInvoice(subscription, 'subscription_cycle', invoiceStatus);
    Object.assign(subscription, { status, latest_invoice: invoice.id });
    return { subscription: { object: subscription, previous }, invoice };
  }

  private updateItem(subscription: SubscriptionObject, change: NonNullable<SubscriptionUpdate['items']>[number], index: number): void {
    const price = change.price === undefined ? undefined : this.price(change.price, `items[${index}][price]`);
    if (change.id === undefined) {
      if (!price) throw new StripeApiError(400, 'invalid_request_error', 'Missing required param: items[0][price].', 'parameter_missing', `items[${index}][price]`);
      subscription.items.data.push(this.newItem(subscription.id, price, change.quantity ?? 1, subscription.items.data[0]));
      subscription.items.total_count = subscription.items.data.length;
      return;
    }
    const item = subscription.items.data.find((candidate) => candidate.id === change.id);
    if (!item) throw noSuch('subscription_item', change.id, `items[${index}][id]`, 400);
    if (price) item.price = structuredClone(price);
    if (change.quantity !== undefined) item.quantity = change.quantity;
  }

  private createCustomer(email: string | null): CustomerObject {
    const customer: CustomerObject = { id: stripeId('cus', 14), object: 'customer', created: this.seconds(), email, livemode: false, metadata: {}, name: null };
    this.customers.set(customer.id, customer);
    return customer;
  }

  private newItem(subscriptionId: string, price: PriceObject, quantity: number, periodOf?: SubscriptionItemObject): SubscriptionItemObject {
    const now = this.seconds();
    return {
      id: stripeId('si', 14),
      object: 'subscription_item',
      created: now,
      current_period_start: periodOf?.current_period_start ?? now,
      current_period_end: periodOf?.current_period_end ?? now + this.options.periodDays * DAY_SECONDS,
      discounts: [],
      metadata: {},
      price: structuredClone(price),
      quantity,
      subscription: subscriptionId,
      tax_rates: [],
    };
  }

  private createSubscription(customer: string, lineItems: LineItem[], metadata: Metadata): SubscriptionObject {
    const id = stripeId('sub', 24);
    const now = this.seconds();
    const items = lineItems.map((item) => this.newItem(id, this.price(item.price), item.quantity));
    const subscription: SubscriptionObject = {
      id,
      object: 'subscription',
      billing_cycle_anchor: now,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      collection_method: 'charge_automatically',
      created: now,
      currency: 'usd',
      customer,
      ended_at: null,
      items: { object: 'list', data: items, has_more: false, total_count: items.length, url: `/v1/subscription_items?subscription=${id}` },
      latest_invoice: null,
      livemode: false,
      metadata,
      start_date: now,
      status: 'active',
    };
    this.subscriptions.set(id, subscription);
    return subscription;
  }

  private createInvoice(subscription: SubscriptionObject, reason: InvoiceObject['billing_reason'], status: 'open' | 'paid'): InvoiceObject {
    const amount = subscription.items.data.reduce((sum, item) => sum + item.price.unit_amount * item.quantity, 0);
    const period = subscription.items.data[0];
    const invoice: InvoiceObject = {
      id: stripeId('in', 24),
      object: 'invoice',
      amount_due: amount,
      amount_paid: status === 'paid' ? amount : 0,
      amount_remaining: status === 'paid' ? 0 : amount,
      attempt_count: 1,
      attempted: true,
      billing_reason: reason,
      created: this.seconds(),
      currency: 'usd',
      customer: subscription.customer,
      livemode: false,
      parent: { type: 'subscription_details', quote_details: null, subscription_details: { metadata: { ...subscription.metadata }, subscription: subscription.id } },
      period_end: period?.current_period_end ?? this.seconds(),
      period_start: period?.current_period_start ?? this.seconds(),
      status,
    };
    subscription.latest_invoice = invoice.id;
    this.invoices.set(invoice.id, invoice);
    return invoice;
  }
}

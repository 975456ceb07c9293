import Stripe from 'stripe';
import { stripeId, type StripeObject } from './stripe-objects';

/** An event as Stripe sends it: the exact body, and the `Stripe-Signature` header signed over it. */
export interface SignedEvent {
  id: string;
  type: string;
  /** The raw JSON body; verify and handle exactly these bytes. */
  payload: string;
  /** A `Stripe-Signature` header value (`t=…,v1=…`) made with the webhook secret when the event was created. */
  signature: string;
}

/** One POST of an event to the webhook URL. */
export interface Delivery {
  eventId: string;
  type: string;
  /** 1 for the first delivery, counting up with each redelivery of the same event. */
  attempt: number;
  /** The endpoint's HTTP status; null when no answer came (refused, reset, timed out). */
  status: number | null;
  error?: string;
}

export interface EventOptions {
  webhookSecret: string;
  webhookUrl?: string | undefined;
  now: () => Date;
  /** How long one delivery waits for the endpoint's answer. */
  deliveryTimeoutMs: number;
}

// Stripe identifies itself so; an endpoint may log it.
const USER_AGENT = 'Stripe/1.0 (+https://stripe.com/docs/webhooks)';

/** The events a Stripe account produced, signed as Stripe signs them, and their deliveries to one endpoint. */
export class StripeEvents {
  readonly created: SignedEvent[] = [];
  readonly deliveries: Delivery[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly options: EventOptions) {}

  /**
   * An event of `type` about `object` (a snapshot of it as it is now), in the shape of
   * https://docs.stripe.com/api/events/object, with the API version the SDK pins.
   */
  create(type: string, object: StripeObject, previous?: Record<string, unknown>, request?: { id: string; idempotencyKey: string | null }): SignedEvent {
    const id = stripeId('evt', 24);
    const event = {
      id,
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: Math.floor(this.options.now().getTime() / 1000),
      data: { object: structuredClone(object), ...(previous && Object.keys(previous).length > 0 ? { previous_attributes: structuredClone(previous) } : {}) },
      livemode: false,
      pending_webhooks: this.options.webhookUrl ? 1 : 0,
      request: { id: request?.id ?? null, idempotency_key: request?.idempotencyKey ?? null },
      type,
    };
    const payload = JSON.stringify(event, null, 2);
    const signed = { id, type, payload, signature: this.sign(payload) };
    this.created.push(signed);
    return signed;
  }

  find(eventId: string): SignedEvent {
    const event = this.created.find((candidate) => candidate.id === eventId);
    if (!event) throw new Error(`no event ${eventId}`);
    return event;
  }

  /** POSTs the events one after the other, as created; nothing without a webhook URL. */
  async deliverAll(events: readonly SignedEvent[]): Promise<Delivery[]> {
    const deliveries: Delivery[] = [];
    for (const event of events) {
      const delivery = await this.deliver(event);
      if (delivery) deliveries.push(delivery);
    }
    return deliveries;
  }

  /** Delivers without making the caller wait, as Stripe does for events an API request caused. */
  deliverLater(events: readonly SignedEvent[]): void {
    const work = this.deliverAll(events).catch(() => undefined);
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** Sends an event again, signed anew (Stripe signs each attempt with its own timestamp). */
  async redeliver(eventId: string): Promise<Delivery> {
    const delivery = await this.deliver(this.find(eventId));
    if (!delivery) throw new Error('the local Stripe server was started without a webhookUrl');
    return delivery;
  }

  /** Resolves once every delivery started so far has its answer. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private sign(payload: string): string {
    return Stripe.webhooks.generateTestHeaderString({ payload, secret: this.options.webhookSecret });
  }

  private async deliver(event: SignedEvent): Promise<Delivery | null> {
    const url = this.options.webhookUrl;
    if (!url) return null;
    const attempt = this.deliveries.filter((delivery) => delivery.eventId === event.id).length + 1;
    const signature = attempt === 1 ? event.signature : this.sign(event.payload);
    let delivery: Delivery;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature, 'user-agent': USER_AGENT },
        body: event.payload,
        signal: AbortSignal.timeout(this.options.deliveryTimeoutMs),
      });
      await response.arrayBuffer();
      delivery = { eventId: event.id, type: event.type, attempt, status: response.status };
    } catch (error) {
      delivery = { eventId: event.id, type: event.type, attempt, status: null, error: error instanceof Error ? error.message : String(error) };
    }
    this.deliveries.push(delivery);
    return delivery;
  }
}

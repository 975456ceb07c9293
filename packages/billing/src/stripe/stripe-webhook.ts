import type pg from 'pg';
import type Stripe from 'stripe';
import type { PlanId } from '@hashwatch/plans';
import { alreadyHandled, recordAndApply, type WebhookOutcome } from './apply-billing-event';
import { parseStripeObject, WebhookSignatureError } from './stripe-errors';
import { readEventFacts } from './stripe-event-facts';
import { eventSchema, type StripeEvent } from './stripe-objects.schema';

export interface HandledWebhook {
  eventId: string;
  type: string;
  /** `applied`: the account follows the event; `duplicate`: the id was handled before, nothing changed; `ignored`: recorded, nothing to change (a type not handled, an account that no longer exists). */
  outcome: WebhookOutcome;
}

export interface WebhookDeps {
  stripe: Stripe;
  webhookSecret: string;
  pool: pg.Pool;
  planOfPrice: ReadonlyMap<string, PlanId>;
  now: () => Date;
}

/** The event in `rawBody` if `signature` verifies it with the webhook secret; a {@link WebhookSignatureError} otherwise. */
function verify(deps: WebhookDeps, rawBody: Buffer, signature: string | undefined): StripeEvent {
  if (!signature) throw new WebhookSignatureError();
  let event: unknown;
  try {
    event = deps.stripe.webhooks.constructEvent(rawBody, signature, deps.webhookSecret);
  } catch {
    // The SDK's reason (no valid v1 signature, timestamp outside the 5-minute tolerance) stays out of the answer.
    throw new WebhookSignatureError();
  }
  return parseStripeObject(eventSchema, event, 'event');
}

/**
 * Handles one webhook request: verifies it, reads what the event means from Stripe, then records the event id and
 * applies it in one transaction. Any error other than {@link WebhookSignatureError} means the event was not
 * recorded: the endpoint answers 5xx and Stripe delivers it again.
 */
export function createWebhookHandler(deps: WebhookDeps): (rawBody: Buffer, signature: string | undefined) => Promise<HandledWebhook> {
  return async (rawBody, signature) => {
    const event = verify(deps, rawBody, signature);
    const handled = (outcome: WebhookOutcome): HandledWebhook => ({ eventId: event.id, type: event.type, outcome });
    // Spares Stripe a read for a redelivered event; the insert in the transaction is what decides.
    if (await alreadyHandled(deps.pool, event.id)) return handled('duplicate');
    // Stripe is read before the transaction opens: no row lock or connection is held across HTTP.
    const facts = await readEventFacts({ stripe: deps.stripe, planOfPrice: deps.planOfPrice }, event);
    return handled(await recordAndApply(deps.pool, event, facts, deps.now()));
  };
}

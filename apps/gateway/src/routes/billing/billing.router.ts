import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { BillingUnavailableError } from '@hashwatch/billing';
import { AppError } from '@hashwatch/errors';
import { PLAN_IDS } from '@hashwatch/plans';
import type { ApiBuilder } from '../../http/api-builder';
import { errorBodyWithCodes } from '../../http/error-schema';
import type { GatewayDeps } from '../../deps';
import { checkoutStartedSchema } from '../checkout/checkout.schema';
import { restartSubscription } from '../checkout/checkout.service';
import { publicLink, type SelfServiceOptions } from '../session/self-service-options';

const WEBHOOK_PATH = '/billing/stripe/webhook';
// Stripe's events are small, but an invoice with many lines is not: a 413 would be answered to every retry until
// Stripe gives up on the event.
const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;

const portalSchema = z
  .object({
    url: z
      .string()
      .nullable()
      .meta({ description: 'Where the customer changes plan or cancels (Stripe’s customer portal); null when the operator manages billing (`manual`) or no payment was made yet.' }),
  })
  .meta({ id: 'BillingPortal' });

const restartSchema = z
  .strictObject({ plan: z.enum(PLAN_IDS, { error: `must be one of ${PLAN_IDS.join(', ')}` }) })
  .meta({ id: 'SubscriptionRestart' });

const webhookAnswerSchema = z
  .object({ received: z.literal(true), outcome: z.enum(['applied', 'duplicate', 'ignored']) })
  .meta({ id: 'StripeWebhookAnswer' });

/** The billing portal link for the dashboard, and Stripe's webhook when BILLING_PROVIDER=stripe. */
export function registerBillingRoutes(api: ApiBuilder, deps: GatewayDeps, options: SelfServiceOptions): void {
  api.route({
    method: 'post',
    path: '/billing/portal',
    tag: 'Account',
    summary: 'A link to change the plan or cancel, at the billing provider.',
    description:
      'Takes no body. The link is short-lived: ask for a new one each time. After the change, the provider’s events update `GET /me`. ' +
      'Reachable while the subscription is past due, canceled or expired (no 402): the portal is where a past-due one pays again; a canceled one subscribes again with `POST /billing/checkout`, since the portal cannot restart it.',
    success: { status: 200, description: 'The portal link, or null.', schema: portalSchema },
    openWhileInactive: true,
    errors: ['service_unavailable'],
    handler: async ({ auth }) => {
      const { rows } = await deps.db.pool.query<{ billing_customer_id: string | null }>('SELECT billing_customer_id FROM users WHERE id = $1', [auth.userId]);
      try {
        return { url: await options.billing.portalUrl({ customerId: rows[0]?.billing_customer_id ?? null }, publicLink(options, '/billing')) };
      } catch (error) {
        if (error instanceof BillingUnavailableError) throw new AppError('service_unavailable', 'the billing provider did not answer; try again shortly');
        throw error;
      }
    },
  });
  api.route({
    method: 'post',
    path: '/billing/checkout',
    tag: 'Account',
    summary: 'Subscribe again after a cancellation: answers where to pay.',
    description:
      'For an account whose subscription is canceled: opens a checkout for `plan` and keeps the account with everything in it (tracks, channels, feed, keys). ' +
      'The billing provider’s events activate it once paid (`GET /me`). Reachable while inactive (no 402). ' +
      'Any other status answers 409 `already_exists`: a live subscription changes plan or pays in the portal (`POST /billing/portal`), and a second one would bill twice. ' +
      'A new checkout closes the account’s earlier unpaid checkout page.',
    body: restartSchema,
    success: { status: 201, description: 'The checkout: open `url` to pay.', schema: checkoutStartedSchema },
    openWhileInactive: true,
    errors: ['already_exists', 'service_unavailable'],
    handler: ({ auth, body }) => restartSubscription(deps, options, auth.userId, body.plan),
  });
  const handle = options.stripeWebhook;
  if (!handle) return;
  // The signature covers the exact bytes Stripe sent: the body is read raw, never re-serialized.
  api.publicRouter.post(WEBHOOK_PATH, express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT_BYTES }), async (req: Request, res: Response) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    // A failure while applying the event propagates: the error handler answers 500 and Stripe delivers it again.
    const handled = await handle(body, req.header('stripe-signature'));
    deps.logger.info('stripe event', { event_id: handled.eventId, type: handled.type, outcome: handled.outcome });
    res.status(200).json({ received: true, outcome: handled.outcome });
  });
  api.registry.registerPath({
    method: 'post',
    path: `/v1${WEBHOOK_PATH}`,
    summary: 'Stripe’s subscription events (BILLING_PROVIDER=stripe).',
    description:
      'Public; verified with the `Stripe-Signature` header and STRIPE_WEBHOOK_SECRET. Each event id is applied once: a repeated one answers 200 and changes nothing. ' +
      'A failure while applying answers 500, so Stripe delivers the event again.',
    tags: ['Billing'],
    security: [],
    request: {
      headers: z.object({ 'Stripe-Signature': z.string().meta({ description: 'Stripe’s signature of the raw body.' }) }),
      body: { required: true, content: { 'application/json': { schema: z.object({ id: z.string(), type: z.string() }).passthrough().meta({ description: 'A Stripe event object.' }) } } },
    },
    responses: {
      200: { description: 'Handled (or already handled).', content: { 'application/json': { schema: webhookAnswerSchema } } },
      400: { description: 'The signature does not verify (`invalid_request`); nothing was applied.', content: { 'application/json': { schema: errorBodyWithCodes(['invalid_request']) } } },
      413: { description: 'The body is over 1 MiB (`payload_too_large`).', content: { 'application/json': { schema: errorBodyWithCodes(['payload_too_large']) } } },
      500: { description: 'Applying the event failed (`internal_error`); nothing was applied, Stripe will retry.', content: { 'application/json': { schema: errorBodyWithCodes(['internal_error']) } } },
    },
  });
}

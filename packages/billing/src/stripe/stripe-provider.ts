import type Stripe from 'stripe';
import type { PlanId } from '@hashwatch/plans';
import { BillingUnavailableError, type BillingProvider } from '../provider';
import { callStripe, describeStripeFailure, isResourceMissing, isStripeError } from './stripe-client';
import { parseStripeObject } from './stripe-errors';
import { checkoutSessionSchema, portalSessionSchema } from './stripe-objects.schema';

/**
 * The three calls of {@link BillingProvider} on Stripe: a Checkout Session in subscription mode, a Billing Portal
 * session, and an immediate cancel. Subscription state never comes back through these: it arrives as webhook events.
 */
export function createStripeProvider(stripe: Stripe, prices: Readonly<Record<PlanId, string>>): BillingProvider {
  return {
    name: 'stripe',

    async startCheckout(request) {
      const session = await callStripe('start the checkout', async () => {
        const created = await stripe.checkout.sessions.create({
          mode: 'subscription',
          line_items: [{ price: prices[request.plan], quantity: 1 }],
          // Both carry the account to the completion event; subscription_data.metadata puts it on the
          // subscription, so its own events (and invoices') name the account too.
          client_reference_id: request.accountId,
          metadata: { account_id: request.accountId, checkout_id: request.checkoutId },
          subscription_data: { metadata: { account_id: request.accountId } },
          ...(request.customerId ? { customer: request.customerId } : { customer_email: request.email }),
          success_url: request.successUrl,
          cancel_url: request.cancelUrl,
        });
        return parseStripeObject(checkoutSessionSchema, created, 'checkout.session');
      });
      if (!session.url) throw new BillingUnavailableError('Stripe answered a Checkout Session without a url');
      return { url: session.url, providerSessionId: session.id };
    },

    async closeCheckout(sessionId) {
      try {
        await stripe.checkout.sessions.expire(sessionId);
        return 'closed';
      } catch (error) {
        if (isResourceMissing(error)) return 'closed';
        // Stripe expires only an open session; any other answer: read what the session is now.
        if (!isStripeError(error) || error.statusCode !== 400) throw new BillingUnavailableError(`Stripe could not expire the checkout (${describeStripeFailure(error)})`);
      }
      const session = await callStripe('read the checkout', async () => parseStripeObject(checkoutSessionSchema, await stripe.checkout.sessions.retrieve(sessionId), 'checkout.session'));
      return session.status === 'complete' ? 'completed' : 'closed';
    },

    async portalUrl(account, returnUrl) {
      const customer = account.customerId;
      if (!customer) return null;
      const portal = await callStripe('open the billing portal', async () =>
        parseStripeObject(portalSessionSchema, await stripe.billingPortal.sessions.create({ customer, return_url: returnUrl }), 'billing_portal.session'),
      );
      return portal.url;
    },

    async cancelSubscription(account) {
      const subscription = account.subscriptionId;
      if (!subscription) return;
      try {
        await stripe.subscriptions.cancel(subscription);
      } catch (error) {
        // Stripe answers a subscription it no longer knows, and one already canceled, with resource_missing:
        // either way nothing bills the account any more.
        if (isResourceMissing(error)) return;
        throw new BillingUnavailableError(`Stripe could not cancel the subscription (${describeStripeFailure(error)})`);
      }
    },
  };
}

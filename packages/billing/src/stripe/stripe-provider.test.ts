import Stripe from 'stripe';
import { useTestEnvironment } from '@hashwatch/testing';
import { startStripeFixture, TEST_PRICES, type StripeFixture } from '../testing';
import { BillingUnavailableError } from '../provider';
import { startPendingCheckout } from '../test-support/pending-account';
import { createStripeBilling, StripeBillingConfigError, type StripeBilling } from './stripe-billing';

describe('the Stripe provider', () => {
  const env = useTestEnvironment();
  let stripe: StripeFixture;
  let billing: StripeBilling;
  const prisma = () => env.database.db.prisma;
  const billingOn = (fixture: StripeFixture, extra: { secretKey?: string; maxNetworkRetries?: number } = {}) =>
    createStripeBilling({ secretKey: fixture.secretKey, webhookSecret: fixture.webhookSecret, prices: TEST_PRICES, apiBaseUrl: fixture.origin, pool: env.database.db.pool, ...extra });
  const checkoutRequest = (customerId: string | null) => ({
    checkoutId: 'chk_request',
    accountId: 'usr_request',
    email: 'buyer@example.com',
    plan: 'business' as const,
    customerId,
    successUrl: 'http://localhost:3000/done',
    cancelUrl: 'http://localhost:3000/again',
  });

  beforeAll(async () => {
    stripe = await startStripeFixture();
    billing = billingOn(stripe);
  });
  afterAll(async () => {
    await stripe.close();
  });
  afterEach(() => stripe.clearFaults());

  it('opens a subscription-mode Checkout Session for the plan price, carrying the account and the checkout', async () => {
    const started = await startPendingCheckout(prisma(), billing.provider, { email: 'ann@example.com', plan: 'pro' });
    const request = stripe.requests.filter((received) => received.method === 'POST' && received.path === '/v1/checkout/sessions').at(-1);
    expect(request?.headers.authorization).toBe(`Bearer ${stripe.secretKey}`);
    expect(request?.idempotencyKey).toEqual(expect.any(String));
    // The SDK's pinned version: the object shapes this package reads are that version's.
    expect(request?.headers['stripe-version']).toBe(Stripe.API_VERSION);
    expect(request?.form).toEqual({
      mode: 'subscription',
      line_items: [{ price: TEST_PRICES.pro, quantity: '1' }],
      client_reference_id: started.accountId,
      metadata: { account_id: started.accountId, checkout_id: started.checkoutId },
      subscription_data: { metadata: { account_id: started.accountId } },
      customer_email: 'ann@example.com',
      success_url: `http://localhost:3000/checkout/${started.checkoutId}/done`,
      cancel_url: `http://localhost:3000/checkout/${started.checkoutId}`,
    });
    expect(started.providerSessionId).toMatch(/^cs_test_/);
    const session = stripe.checkoutSession(started.providerSessionId);
    expect(started.url).toBe(session.url);
    expect(session).toMatchObject({ object: 'checkout.session', mode: 'subscription', status: 'open', client_reference_id: started.accountId });
  });

  it('names a returning customer instead of an email', async () => {
    const first = await billing.provider.startCheckout(checkoutRequest(null));
    const { customerId } = await stripe.completeCheckout(first.providerSessionId ?? '');
    await billing.provider.startCheckout(checkoutRequest(customerId));
    const form = stripe.requests.filter((received) => received.path === '/v1/checkout/sessions').at(-1)?.form;
    expect(form).toMatchObject({ customer: customerId, line_items: [{ price: TEST_PRICES.business, quantity: '1' }] });
    expect(form).not.toHaveProperty('customer_email');
  });

  it('retries a failed checkout call with the same idempotency key, and Stripe creates one session', async () => {
    stripe.fail({ method: 'POST', path: '/v1/checkout/sessions', status: 500, times: 1 });
    const before = stripe.requests.length;
    const started = await billing.provider.startCheckout(checkoutRequest(null));
    const attempts = stripe.requests.slice(before);
    expect(attempts.map((received) => received.status)).toEqual([500, 200]);
    expect(attempts[1]?.idempotencyKey).toBe(attempts[0]?.idempotencyKey);
    expect(started.providerSessionId).toMatch(/^cs_test_/);
  });

  it('answers BillingUnavailableError without the key when Stripe refuses the key or keeps failing', async () => {
    const wrongKey = 'sk_test_wrong_key_0123456789abcdef';
    const refused = billingOn(stripe, { secretKey: wrongKey }).provider.startCheckout(checkoutRequest(null));
    await expect(refused).rejects.toBeInstanceOf(BillingUnavailableError);
    const error = (await refused.catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(/HTTP 401/);
    expect(error.message).not.toContain('sk_test');
    expect(stripe.requests.at(-1)?.status).toBe(401);

    stripe.fail({ path: '/v1/checkout/sessions', status: 503 });
    await expect(billingOn(stripe, { maxNetworkRetries: 0 }).provider.startCheckout(checkoutRequest(null))).rejects.toThrow(/could not start the checkout \(api_error, HTTP 503/);
  });

  it('opens the billing portal for a customer, and has no portal without one', async () => {
    const started = await billing.provider.startCheckout(checkoutRequest(null));
    const { customerId } = await stripe.completeCheckout(started.providerSessionId ?? '');
    const url = await billing.provider.portalUrl({ customerId }, 'http://localhost:3000/billing');
    expect(url).toMatch(new RegExp(`^${stripe.origin}/p/session/bps_`));
    expect(stripe.requests.at(-1)).toMatchObject({ method: 'POST', path: '/v1/billing_portal/sessions', form: { customer: customerId, return_url: 'http://localhost:3000/billing' } });
    const before = stripe.requests.length;
    expect(await billing.provider.portalUrl({ customerId: null }, 'http://localhost:3000/billing')).toBeNull();
    expect(stripe.requests).toHaveLength(before);
  });

  it('cancels a subscription at once, and a second cancel, a missing subscription or none at all is fine', async () => {
    const started = await billing.provider.startCheckout(checkoutRequest(null));
    const { subscriptionId } = await stripe.completeCheckout(started.providerSessionId ?? '');
    await billing.provider.cancelSubscription({ subscriptionId });
    expect(stripe.subscription(subscriptionId)).toMatchObject({ status: 'canceled', canceled_at: expect.any(Number) });
    expect(stripe.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/v1/subscriptions/${subscriptionId}`, status: 200 });
    await billing.provider.cancelSubscription({ subscriptionId });
    expect(stripe.requests.at(-1)).toMatchObject({ method: 'DELETE', status: 404 });
    await billing.provider.cancelSubscription({ subscriptionId: 'sub_never_existed' });
    const before = stripe.requests.length;
    await billing.provider.cancelSubscription({ subscriptionId: null });
    expect(stripe.requests).toHaveLength(before);
    await stripe.idle();
  });

  it('answers BillingUnavailableError when the cancel fails for another reason', async () => {
    stripe.fail({ method: 'DELETE', status: 500 });
    await expect(billingOn(stripe, { maxNetworkRetries: 0 }).provider.cancelSubscription({ subscriptionId: 'sub_any' })).rejects.toBeInstanceOf(BillingUnavailableError);
  });

  it('closes an open checkout so its page can no longer be paid, and says when it was paid already', async () => {
    const open = await billing.provider.startCheckout(checkoutRequest(null));
    await expect(billing.provider.closeCheckout(open.providerSessionId as string)).resolves.toBe('closed');
    expect(stripe.checkoutSession(open.providerSessionId as string)).toMatchObject({ status: 'expired', url: null });
    await expect(stripe.completeCheckout(open.providerSessionId as string)).rejects.toThrow(/expired, not open/);
    await expect(billing.provider.closeCheckout(open.providerSessionId as string)).resolves.toBe('closed');

    const paid = await billing.provider.startCheckout(checkoutRequest(null));
    await stripe.completeCheckout(paid.providerSessionId as string);
    await expect(billing.provider.closeCheckout(paid.providerSessionId as string)).resolves.toBe('completed');
    await expect(billing.provider.closeCheckout('cs_test_unknown')).resolves.toBe('closed');
    await stripe.idle();
  });

  it('answers BillingUnavailableError when Stripe cannot close a checkout', async () => {
    const open = await billing.provider.startCheckout(checkoutRequest(null));
    stripe.fail({ method: 'POST', path: /\/expire$/, status: 503 });
    await expect(billingOn(stripe, { maxNetworkRetries: 0 }).provider.closeCheckout(open.providerSessionId as string)).rejects.toBeInstanceOf(BillingUnavailableError);
    expect(stripe.checkoutSession(open.providerSessionId as string).status).toBe('open');
  });

  it('refuses options that cannot work, naming the option and never its value', () => {
    const base = { secretKey: 'sk_test_secret_value', webhookSecret: 'whsec_secret_value', prices: TEST_PRICES, pool: env.database.db.pool };
    const refusal = (options: Parameters<typeof createStripeBilling>[0]) => {
      try {
        createStripeBilling(options);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const withPath = refusal({ ...base, apiBaseUrl: 'http://127.0.0.1:4567/v1' });
    expect(withPath).toBeInstanceOf(StripeBillingConfigError);
    expect((withPath as Error).message).toMatch(/apiBaseUrl/);
    expect(refusal({ ...base, prices: { ...TEST_PRICES, pro: TEST_PRICES.starter } })).toBeInstanceOf(StripeBillingConfigError);
    const badKey = refusal({ ...base, secretKey: 'pk_test_publishable_value' }) as Error;
    expect(badKey.message).toMatch(/secretKey/);
    expect(badKey.message).not.toContain('publishable_value');
  });
});

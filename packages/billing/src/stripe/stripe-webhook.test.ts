import Stripe from 'stripe';
import { useTestEnvironment } from '@hashwatch/testing';
import { BillingUnavailableError } from '../provider';
import { startPendingCheckout } from '../test-support/pending-account';
import { startWebhookEndpoint, type WebhookEndpoint } from '../test-support/webhook-endpoint';
import { startStripeFixture, TEST_PRICES, type SignedEvent, type StripeFixture } from '../testing';
import { createStripeBilling, type StripeBilling } from './stripe-billing';
import { WebhookSignatureError } from './stripe-errors';

const seconds = (unix: number) => new Date(unix * 1000);

describe('Stripe webhooks', () => {
  const env = useTestEnvironment();
  let stripe: StripeFixture;
  let billing: StripeBilling;
  const prisma = () => env.database.db.prisma;
  const pool = () => env.database.db.pool;

  beforeAll(async () => {
    stripe = await startStripeFixture();
    billing = createStripeBilling({ secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, prices: TEST_PRICES, apiBaseUrl: stripe.origin, pool: pool() });
  });
  afterAll(async () => {
    await stripe.close();
  });

  const handle = (event: SignedEvent, signature = event.signature) => billing.handleWebhook(Buffer.from(event.payload), signature);
  const handleAll = async (events: readonly SignedEvent[]) => {
    const outcomes: [string, string][] = [];
    for (const event of events) outcomes.push([event.type, (await handle(event)).outcome]);
    return outcomes;
  };
  const eventOf = (events: readonly SignedEvent[], type: string): SignedEvent => {
    const found = events.find((event) => event.type === type);
    if (!found) throw new Error(`no ${type} event`);
    return found;
  };
  const account = (id: string) => prisma().user.findUniqueOrThrow({ where: { id } });
  const records = async (eventId: string) => (await pool().query('SELECT 1 FROM billing_events WHERE provider = $1 AND event_id = $2', ['stripe', eventId])).rowCount;
  /** A pending account whose checkout was paid on Stripe; none of the events handled yet. */
  const paidCheckout = async (email: string, plan: 'starter' | 'pro' | 'business' = 'starter') => {
    const pending = await startPendingCheckout(prisma(), billing.provider, { email, plan });
    return { ...pending, ...(await stripe.completeCheckout(pending.providerSessionId)) };
  };
  const activeAccount = async (email: string, plan: 'starter' | 'pro' | 'business' = 'starter') => {
    const paid = await paidCheckout(email, plan);
    await handleAll(paid.events);
    return paid;
  };

  it('refuses a request whose signature does not verify, and records nothing', async () => {
    const paid = await paidCheckout('forged@example.com');
    const completed = eventOf(paid.events, 'checkout.session.completed');
    const tampered = { ...completed, payload: completed.payload.replace(paid.accountId, 'usr_someone_else') };
    const otherSecret = Stripe.webhooks.generateTestHeaderString({ payload: completed.payload, secret: 'whsec_not_ours' });
    const stale = Stripe.webhooks.generateTestHeaderString({ payload: completed.payload, secret: stripe.webhookSecret, timestamp: Math.floor(Date.now() / 1000) - 600 });
    for (const attempt of [handle(tampered), handle(completed, otherSecret), handle(completed, stale), billing.handleWebhook(Buffer.from(completed.payload), undefined)]) {
      await expect(attempt).rejects.toBeInstanceOf(WebhookSignatureError);
    }
    await expect(handle(completed, 'garbage')).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
    expect(await records(completed.id)).toBe(0);
    expect((await account(paid.accountId)).subscriptionStatus).toBe('pending');
  });

  it('activates a pending account on checkout completion, with the period of the subscription item', async () => {
    const paid = await paidCheckout('ann@example.com', 'pro');
    expect(await handleAll(paid.events)).toEqual([
      ['customer.created', 'ignored'],
      ['checkout.session.completed', 'applied'],
      ['customer.subscription.created', 'applied'],
      ['invoice.paid', 'applied'],
    ]);
    const item = stripe.subscription(paid.subscriptionId).items.data[0];
    expect(await account(paid.accountId)).toMatchObject({
      subscriptionStatus: 'active',
      billingCustomerId: paid.customerId,
      billingSubscriptionId: paid.subscriptionId,
      currentPeriodStart: seconds(item?.current_period_start ?? 0),
      currentPeriodEnd: seconds(item?.current_period_end ?? 0),
      planId: 'pro',
      hashtagsLimit: 15,
    });
    expect((await prisma().checkout.findUniqueOrThrow({ where: { id: paid.checkoutId } })).completedAt).toBeInstanceOf(Date);
    for (const event of paid.events) expect(await records(event.id)).toBe(1);
  });

  it('changes nothing for an event id it handled before, however often and however concurrently it comes', async () => {
    const paid = await activeAccount('twice@example.com');
    const completed = eventOf(paid.events, 'checkout.session.completed');
    await prisma().user.update({ where: { id: paid.accountId }, data: { subscriptionStatus: 'past_due' } });
    expect(await handle(completed)).toEqual({ eventId: completed.id, type: 'checkout.session.completed', outcome: 'duplicate' });
    const resigned = Stripe.webhooks.generateTestHeaderString({ payload: completed.payload, secret: stripe.webhookSecret });
    expect((await handle(completed, resigned)).outcome).toBe('duplicate');
    expect((await account(paid.accountId)).subscriptionStatus).toBe('past_due');

    const { events } = await stripe.renew(paid.subscriptionId);
    const renewed = eventOf(events, 'invoice.paid');
    const outcomes = await Promise.all([handle(renewed), handle(renewed), handle(renewed)]);
    expect(outcomes.map((handled) => handled.outcome).sort()).toEqual(['applied', 'duplicate', 'duplicate']);
    expect(await records(renewed.id)).toBe(1);
  });

  it('ends in the current state whatever order the events arrive in', async () => {
    const paid = await paidCheckout('shuffled@example.com');
    expect(await handleAll([eventOf(paid.events, 'invoice.paid'), eventOf(paid.events, 'customer.subscription.created')])).toEqual([
      ['invoice.paid', 'applied'],
      ['customer.subscription.created', 'applied'],
    ]);
    expect(await account(paid.accountId)).toMatchObject({ subscriptionStatus: 'active', billingSubscriptionId: paid.subscriptionId, billingCustomerId: paid.customerId });
    expect(await handle(eventOf(paid.events, 'checkout.session.completed'))).toMatchObject({ outcome: 'applied' });
    expect((await prisma().checkout.findUniqueOrThrow({ where: { id: paid.checkoutId } })).completedAt).toBeInstanceOf(Date);

    // A renewal fails, then a later one is paid; the failure's events arrive after the payment's.
    const failed = await stripe.failPayment(paid.subscriptionId);
    const recovered = await stripe.renew(paid.subscriptionId);
    await handleAll(recovered.events);
    await handleAll(failed.events);
    const item = stripe.subscription(paid.subscriptionId).items.data[0];
    expect(await account(paid.accountId)).toMatchObject({ subscriptionStatus: 'active', currentPeriodEnd: seconds(item?.current_period_end ?? 0) });
  });

  it('switches plan with a fresh limit snapshot and a scheduler signal when the subscription moves to another price', async () => {
    const paid = await activeAccount('upgrade@example.com', 'starter');
    const before = await account(paid.accountId);
    await pool().query(`DELETE FROM outbox_jobs WHERE name = 'reconcile-schedulers'`);
    const { events } = await stripe.changePlan(paid.subscriptionId, TEST_PRICES.business);
    expect(await handleAll(events)).toEqual([['customer.subscription.updated', 'applied']]);
    expect(await account(paid.accountId)).toMatchObject({
      planId: 'business',
      hashtagsLimit: 40,
      accountsLimit: 25,
      scanIntervalSeconds: 10,
      rateLimitPerMinute: 600,
      subscriptionStatus: 'active',
      currentPeriodEnd: before.currentPeriodEnd,
    });
    const signals = await pool().query<{ queue: string }>(`SELECT queue FROM outbox_jobs WHERE name = 'reconcile-schedulers' ORDER BY id`);
    expect(signals.rows.map((row) => row.queue)).toEqual(['source-scans', 'engagement-refreshes']);

    // An update that leaves the price alone signals nothing.
    await handleAll((await stripe.renew(paid.subscriptionId)).events);
    expect((await pool().query(`SELECT 1 FROM outbox_jobs WHERE name = 'reconcile-schedulers'`)).rowCount).toBe(2);
  });

  it('marks the account past due when a renewal payment fails, in the new period', async () => {
    const paid = await activeAccount('declined@example.com');
    const failed = await stripe.failPayment(paid.subscriptionId);
    expect(await handleAll(failed.events)).toEqual([
      ['invoice.payment_failed', 'applied'],
      ['customer.subscription.updated', 'applied'],
    ]);
    const item = stripe.subscription(paid.subscriptionId).items.data[0];
    expect(await account(paid.accountId)).toMatchObject({ subscriptionStatus: 'past_due', currentPeriodStart: seconds(item?.current_period_start ?? 0) });
  });

  it('cancels the account when the subscription is deleted, in the portal or through the provider', async () => {
    const inPortal = await activeAccount('leaving@example.com');
    expect(await handleAll((await stripe.cancel(inPortal.subscriptionId)).events)).toEqual([['customer.subscription.deleted', 'applied']]);
    expect((await account(inPortal.accountId)).subscriptionStatus).toBe('canceled');

    const byUs = await activeAccount('deleting@example.com');
    await billing.provider.cancelSubscription({ subscriptionId: byUs.subscriptionId });
    const deleted = stripe.events.at(-1);
    expect(deleted?.type).toBe('customer.subscription.deleted');
    expect(await handle(deleted as SignedEvent)).toMatchObject({ outcome: 'applied' });
    expect((await account(byUs.accountId)).subscriptionStatus).toBe('canceled');
  });

  it('records and ignores an event for an account that was erased', async () => {
    const paid = await activeAccount('erased@example.com');
    await pool().query('DELETE FROM users WHERE id = $1', [paid.accountId]);
    const { events } = await stripe.cancel(paid.subscriptionId);
    expect(await handleAll(events)).toEqual([['customer.subscription.deleted', 'ignored']]);
    expect(await records(events[0]?.id ?? '')).toBe(1);
  });

  it('ignores the late end of a former subscription once the account pays for a new one', async () => {
    const first = await activeAccount('returning@example.com');
    const ended = await stripe.cancel(first.subscriptionId);
    const again = await billing.provider.startCheckout({
      checkoutId: 'chk_returning',
      accountId: first.accountId,
      email: 'returning@example.com',
      plan: 'pro',
      customerId: first.customerId,
      successUrl: 'http://localhost:3000/done',
      cancelUrl: 'http://localhost:3000/again',
    });
    const second = await stripe.completeCheckout(again.providerSessionId ?? '');
    await handleAll(second.events);
    expect(await handleAll(ended.events)).toEqual([['customer.subscription.deleted', 'ignored']]);
    expect(await account(first.accountId)).toMatchObject({ subscriptionStatus: 'active', billingSubscriptionId: second.subscriptionId, planId: 'pro' });
  });
});

describe('Stripe webhooks while Stripe fails', () => {
  const env = useTestEnvironment();
  let stripe: StripeFixture;
  let billing: StripeBilling;
  let endpoint: WebhookEndpoint;

  beforeAll(async () => {
    endpoint = await startWebhookEndpoint((rawBody, signature) => billing.handleWebhook(rawBody, signature));
    stripe = await startStripeFixture({ webhookUrl: endpoint.url });
    billing = createStripeBilling({
      secretKey: stripe.secretKey,
      webhookSecret: stripe.webhookSecret,
      prices: TEST_PRICES,
      apiBaseUrl: stripe.origin,
      pool: env.database.db.pool,
      maxNetworkRetries: 0,
    });
  });
  afterAll(async () => {
    await stripe.close();
    await endpoint.close();
  });

  it('answers 5xx and records nothing while the subscription cannot be read, then applies the redelivered event once', async () => {
    const prisma = env.database.db.prisma;
    const pending = await startPendingCheckout(prisma, billing.provider, { email: 'outage@example.com', plan: 'starter' });
    stripe.fail({ method: 'GET', path: '/v1/subscriptions', status: 500 });
    const paid = await stripe.completeCheckout(pending.providerSessionId);
    expect(paid.deliveries.map((delivery) => [delivery.type, delivery.status])).toEqual([
      ['customer.created', 200],
      ['checkout.session.completed', 500],
      ['customer.subscription.created', 500],
      ['invoice.paid', 500],
    ]);
    const completed = paid.events.find((event) => event.type === 'checkout.session.completed') as SignedEvent;
    await expect(billing.handleWebhook(Buffer.from(completed.payload), completed.signature)).rejects.toBeInstanceOf(BillingUnavailableError);
    const recorded = await env.database.db.pool.query<{ event_id: string }>('SELECT event_id FROM billing_events');
    expect(recorded.rows.map((row) => row.event_id)).toEqual([paid.events[0]?.id]);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: pending.accountId } })).subscriptionStatus).toBe('pending');

    stripe.clearFaults();
    const failed = paid.deliveries.filter((delivery) => delivery.status === 500);
    for (const delivery of failed) expect(await stripe.redeliver(delivery.eventId)).toMatchObject({ attempt: 2, status: 200 });
    expect(await prisma.user.findUniqueOrThrow({ where: { id: pending.accountId } })).toMatchObject({ subscriptionStatus: 'active', billingSubscriptionId: paid.subscriptionId });
    expect(await stripe.redeliver(completed.id)).toMatchObject({ attempt: 3, status: 200 });
    expect(endpoint.answers.slice(-4).map((answer) => ('outcome' in answer ? answer.outcome : answer.status))).toEqual(['applied', 'applied', 'applied', 'duplicate']);
    expect((await env.database.db.pool.query('SELECT 1 FROM billing_events')).rowCount).toBe(4);
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStripeBilling, type StripeBilling } from '@hashwatch/billing';
import { startStripeFixture, TEST_PRICES, type StripeFixture } from '@hashwatch/billing/testing';
import { request, useGateway } from '../../test-support/gateway-harness';

const PASSWORD = 'correct horse battery staple';

/**
 * The gateway under BILLING_PROVIDER=stripe against a local server that speaks Stripe's API, which delivers its
 * signed events to the gateway's own webhook over HTTP, as Stripe does.
 */
describe('checkout and billing with Stripe', () => {
  let stripe: StripeFixture;
  let billing: StripeBilling;
  let server: Server;
  // The listening gateway Stripe delivers to: created first, so the fixture knows its address.
  beforeAll(async () => {
    server = createServer((req, res) => gw.app(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stripe = await startStripeFixture({ webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/billing/stripe/webhook` });
  });
  const gw = useGateway({
    selfService: (env) => {
      billing = createStripeBilling({ secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, prices: TEST_PRICES, apiBaseUrl: stripe.origin, pool: env.database.db.pool, maxNetworkRetries: 0 });
      return { billing: billing.provider, autoActivate: true, publicUrl: 'https://watch.example.com', mailer: null, stripeWebhook: billing.handleWebhook };
    },
  });
  afterAll(async () => {
    await stripe.close();
    await new Promise((resolve) => server.close(resolve));
  });
  afterEach(() => stripe.clearFaults());

  async function checkout(email: string, plan = 'pro') {
    const res = await request(gw.app).post('/v1/api/checkout').send({ email, plan, password: PASSWORD }).expect(201);
    const row = await gw.env.database.db.prisma.checkout.findUniqueOrThrow({ where: { id: res.body.checkout_id } });
    return { res, row, sessionId: row.providerSessionId as string };
  }

  it('opens a Checkout Session in subscription mode for the plan’s price, and answers its page; the account waits (no auto-activation)', async () => {
    const { res, row, sessionId } = await checkout('buyer@example.com', 'pro');
    expect(sessionId).toMatch(/^cs_test_/);
    expect(res.body.url).toBe(stripe.checkoutSession(sessionId).url);
    expect(row).toMatchObject({ provider: 'stripe', planId: 'pro', completedAt: null });
    const sent = stripe.requests.find((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions');
    expect(sent?.form).toMatchObject({
      mode: 'subscription',
      line_items: [{ price: TEST_PRICES.pro, quantity: '1' }],
      client_reference_id: row.userId,
      metadata: { account_id: row.userId, checkout_id: row.id },
      customer_email: 'buyer@example.com',
      success_url: `https://watch.example.com/checkout/${row.id}?status=success`,
    });
    const user = await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: row.userId } });
    expect(user.subscriptionStatus).toBe('pending');
  });

  it('activates the account when Stripe’s signed events arrive, once per event id', async () => {
    const { row, sessionId } = await checkout('paid@example.com', 'business');
    const completed = await stripe.completeCheckout(sessionId);
    expect(completed.deliveries.map((delivery) => delivery.status)).toEqual(completed.events.map(() => 200));
    const user = await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: row.userId } });
    const item = stripe.subscription(completed.subscriptionId).items.data[0];
    expect(user).toMatchObject({ subscriptionStatus: 'active', planId: 'business', billingCustomerId: completed.customerId, billingSubscriptionId: completed.subscriptionId });
    expect(user.currentPeriodEnd.getTime()).toBe((item?.current_period_end ?? 0) * 1000);
    const repeated = completed.events[1]?.id as string;
    expect((await stripe.redeliver(repeated)).status).toBe(200);
    expect(await gw.env.database.db.prisma.billingEvent.count({ where: { eventId: repeated } })).toBe(1);
    expect(gw.logs.filter((line) => line.event_id === repeated).map((line) => line.outcome)).toEqual(['applied', 'duplicate']);
    const session = await gw.signIn('paid@example.com', PASSWORD);
    const me = await request(gw.app).get('/v1/me').set(session.headers).expect(200);
    expect(me.body.subscription.status).toBe('active');
    const portal = await request(gw.app).post('/v1/billing/portal').set(session.headers).expect(200);
    expect(portal.body.url).toMatch(new RegExp(`^${stripe.origin}/p/session/`));
  });

  it('closes a pending account’s earlier checkout page when a new checkout replaces its password, so nobody pays for someone else’s password', async () => {
    const first = await checkout('twice@example.com', 'pro');
    const second = await checkout('twice@example.com', 'business');
    expect(stripe.checkoutSession(first.sessionId)).toMatchObject({ status: 'expired', url: null });
    await expect(stripe.completeCheckout(first.sessionId)).rejects.toThrow(/not open/);
    expect(await gw.env.database.db.prisma.checkout.count({ where: { userId: first.row.userId } })).toBe(1);
    await stripe.completeCheckout(second.sessionId);
    expect(await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: first.row.userId } })).toMatchObject({ subscriptionStatus: 'active', planId: 'business' });
  });

  it('takes simultaneous checkouts of one pending email in turn: one payable page is left, for the last password set', async () => {
    const passwords = ['first password here', 'second password here', 'third password here', 'fourth password here'];
    const answers = await Promise.all(
      passwords.map((password, i) => request(gw.app).post('/v1/api/checkout').send({ email: 'together@example.com', plan: i % 2 ? 'pro' : 'business', password })),
    );
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201, 201]);
    const sessions = answers.map((res) => /\/c\/pay\/(cs_test_[A-Za-z0-9_]+)/.exec(res.body.url as string)?.[1] as string);
    const open = sessions.filter((id) => stripe.checkoutSession(id).status === 'open');
    expect(open).toHaveLength(1);
    const rows = await gw.env.database.db.prisma.checkout.findMany({ where: { user: { email: 'together@example.com' } } });
    expect(rows.map((row) => row.providerSessionId)).toEqual(open);
    // The open page is the last one opened, and the account holds the password of that checkout.
    const last = answers.find((res) => res.body.checkout_id === rows[0]?.id);
    const password = passwords[answers.indexOf(last!)] as string;
    await stripe.completeCheckout(open[0] as string);
    await gw.signIn('together@example.com', password);
  });

  it('lets a canceled account subscribe again, keeping what it holds; the old subscription’s cancellation delivered again changes nothing', async () => {
    const { row, sessionId } = await checkout('returning@example.com', 'pro');
    const first = await stripe.completeCheckout(sessionId);
    const session = await gw.signIn('returning@example.com', PASSWORD);
    await request(gw.app).post('/v1/tracks').set(session.headers).send({ hashtag: 'kept' }).expect(201);
    const canceled = await stripe.cancel(first.subscriptionId);
    expect((await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: row.userId } })).subscriptionStatus).toBe('canceled');
    await request(gw.app).get('/v1/tracks').set(session.headers).expect(402);

    const bad = await request(gw.app).post('/v1/billing/checkout').set(session.headers).send({ plan: 'gold' }).expect(400);
    expect(bad.body.error.code).toBe('invalid_request');
    const again = await request(gw.app).post('/v1/billing/checkout').set(session.headers).send({ plan: 'business' }).expect(201);
    const restart = await gw.env.database.db.prisma.checkout.findUniqueOrThrow({ where: { id: again.body.checkout_id } });
    expect(restart).toMatchObject({ userId: row.userId, planId: 'business', completedAt: null });
    const sent = stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions').at(-1);
    expect(sent?.form).toMatchObject({ customer: first.customerId, client_reference_id: row.userId, line_items: [{ price: TEST_PRICES.business, quantity: '1' }] });
    // A second restart closes the first page, so only one can be paid.
    const third = await request(gw.app).post('/v1/billing/checkout').set(session.headers).send({ plan: 'business' }).expect(201);
    expect(stripe.checkoutSession(restart.providerSessionId as string).status).toBe('expired');
    const thirdRow = await gw.env.database.db.prisma.checkout.findUniqueOrThrow({ where: { id: third.body.checkout_id } });

    const paid = await stripe.completeCheckout(thirdRow.providerSessionId as string);
    const user = await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: row.userId } });
    expect(user).toMatchObject({ subscriptionStatus: 'active', planId: 'business', billingCustomerId: first.customerId, billingSubscriptionId: paid.subscriptionId });
    const tracks = await request(gw.app).get('/v1/tracks').set(session.headers).expect(200);
    expect(JSON.stringify(tracks.body)).toContain('kept');
    // Stripe delivers the old subscription's deletion again: the new subscription stays.
    for (const event of canceled.events) await stripe.redeliver(event.id);
    expect((await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: row.userId } })).subscriptionStatus).toBe('active');

    const live = await request(gw.app).post('/v1/billing/checkout').set(session.headers).send({ plan: 'pro' }).expect(409);
    expect(live.body.error).toMatchObject({ code: 'already_exists', message: expect.stringContaining('billing portal') });
  });

  it('answers 409 and changes nothing when the earlier checkout was paid before its event arrived', async () => {
    const first = await checkout('raced@example.com', 'pro');
    // The payment's events cannot be applied yet (Stripe's subscription cannot be read): the account is still pending.
    stripe.fail({ method: 'GET', path: '/v1/subscriptions', status: 500 });
    const paid = await stripe.completeCheckout(first.sessionId);
    expect(paid.deliveries.some((delivery) => delivery.status === 500)).toBe(true);
    const before = await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: first.row.userId } });
    const res = await request(gw.app).post('/v1/api/checkout').send({ email: 'raced@example.com', plan: 'starter', password: 'the other persons password' }).expect(409);
    expect(res.body.error.code).toBe('already_exists');
    expect(await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: first.row.userId } })).toEqual(before);
  });

  it('answers 400 to a delivery whose signature does not verify, and applies nothing', async () => {
    const { row } = await checkout('forged@example.com');
    const forged = JSON.stringify({ id: 'evt_forged', object: 'event', type: 'checkout.session.completed', data: { object: { client_reference_id: row.userId } } });
    const res = await request(gw.app).post('/v1/billing/stripe/webhook').set('Stripe-Signature', 't=1,v1=deadbeef').set('Content-Type', 'application/json').send(forged).expect(400);
    expect(res.body.error.code).toBe('invalid_request');
    await request(gw.app).post('/v1/billing/stripe/webhook').set('Content-Type', 'application/json').send(forged).expect(400);
    expect(await gw.env.database.db.prisma.billingEvent.count({ where: { eventId: 'evt_forged' } })).toBe(0);
    expect((await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: row.userId } })).subscriptionStatus).toBe('pending');
  });

  it('answers 500 when an event cannot be applied, so Stripe delivers it again, and loses nothing', async () => {
    const { row, sessionId } = await checkout('retry@example.com');
    stripe.fail({ method: 'GET', path: '/v1/subscriptions', status: 500, times: 100 });
    const completed = await stripe.completeCheckout(sessionId);
    expect(completed.deliveries.some((delivery) => delivery.status === 500)).toBe(true);
    expect((await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: row.userId } })).subscriptionStatus).toBe('pending');
    stripe.clearFaults();
    for (const event of completed.events) expect((await stripe.redeliver(event.id)).status).toBe(200);
    expect((await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: row.userId } })).subscriptionStatus).toBe('active');
  });

  it('answers 503 when Stripe does not answer a checkout; the pending account stays and a retry reuses it', async () => {
    stripe.fail({ method: 'POST', path: '/v1/checkout/sessions', status: 503, times: 1 });
    const res = await request(gw.app).post('/v1/api/checkout').send({ email: 'down@example.com', plan: 'starter', password: PASSWORD }).expect(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.body.error.message).not.toContain(stripe.secretKey);
    const { row } = await checkout('down@example.com', 'starter');
    expect(await gw.env.database.db.prisma.user.count({ where: { email: 'down@example.com' } })).toBe(1);
    expect(row.provider).toBe('stripe');
  });

  it('cancels the Stripe subscription before erasing the account, and erases nothing while Stripe does not answer', async () => {
    const { row, sessionId } = await checkout('leaving@example.com');
    const completed = await stripe.completeCheckout(sessionId);
    const session = await gw.signIn('leaving@example.com', PASSWORD);
    stripe.fail({ method: 'DELETE', path: '/v1/subscriptions', status: 503, times: 1 });
    const refused = await request(gw.app).delete('/v1/me').set(session.headers).expect(503);
    expect(refused.body.error.message).toMatch(/nothing was erased/);
    expect(await gw.env.database.db.prisma.user.count({ where: { id: row.userId } })).toBe(1);
    await request(gw.app).delete('/v1/me').set(session.headers).expect(200, { deleted: true });
    expect(stripe.subscription(completed.subscriptionId).status).toBe('canceled');
    expect(await gw.env.database.db.prisma.user.count({ where: { id: row.userId } })).toBe(0);
    // Stripe's own deletion event for the erased account is recorded and ignored.
    await stripe.idle();
    const deleted = stripe.events.filter((event) => event.type === 'customer.subscription.deleted');
    for (const event of deleted) expect((await stripe.redeliver(event.id)).status).toBe(200);
  });
});

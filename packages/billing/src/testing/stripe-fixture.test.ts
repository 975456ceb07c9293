import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { startStripeFixture, TEST_PRICES, type StripeFixture } from './index';

/** The local Stripe server spoken to as any HTTP client would, without the SDK. */
describe('the local Stripe server', () => {
  let stripe: StripeFixture;
  beforeAll(async () => {
    stripe = await startStripeFixture({ now: () => new Date('2026-11-20T12:00:00Z') });
  });
  afterAll(async () => {
    await stripe.close();
  });
  afterEach(() => stripe.clearFaults());

  const call = async (method: string, path: string, options: { body?: string; key?: string | null; headers?: Record<string, string> } = {}) => {
    const key = options.key === undefined ? stripe.secretKey : options.key;
    const response = await fetch(`${stripe.origin}${path}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  };
  const checkoutForm = (extra = '') =>
    `mode=subscription&line_items[0][price]=${TEST_PRICES.pro}&line_items[0][quantity]=1&customer_email=a%40example.com&metadata[account_id]=usr_1&success_url=http%3A%2F%2Flocalhost%2Fdone${extra}`;

  it("answers 401 in Stripe's error shape without a key or with another key", async () => {
    const missing = await call('GET', '/v1/subscriptions/sub_x', { key: null });
    expect(missing).toMatchObject({ status: 401, body: { error: { type: 'invalid_request_error', message: expect.stringMatching(/did not provide an API key/) } } });
    const wrong = await call('GET', '/v1/subscriptions/sub_x', { key: 'sk_test_not_the_right_key_4242' });
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(wrong.body)).not.toContain('not_the_right');
    expect(wrong.headers.get('request-id')).toMatch(/^req_/);
  });

  it('answers 404 resource_missing for an id it does not know, and for an unknown path', async () => {
    expect(await call('GET', '/v1/subscriptions/sub_unknown')).toMatchObject({
      status: 404,
      body: { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: "No such subscription: 'sub_unknown'" } },
    });
    expect((await call('GET', '/v1/nothing_here')).status).toBe(404);
  });

  it('reads bracketed form bodies, and names a missing or unknown parameter as Stripe does', async () => {
    const created = await call('POST', '/v1/checkout/sessions', { body: checkoutForm('&subscription_data[metadata][account_id]=usr_1') });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ object: 'checkout.session', id: expect.stringMatching(/^cs_test_/), mode: 'subscription', status: 'open', amount_total: 2000, metadata: { account_id: 'usr_1' } });
    expect(stripe.requests.at(-1)?.form).toMatchObject({ line_items: [{ price: TEST_PRICES.pro, quantity: '1' }], subscription_data: { metadata: { account_id: 'usr_1' } } });
    expect(await call('POST', '/v1/checkout/sessions', { body: 'line_items[0][price]=x' })).toMatchObject({ status: 400, body: { error: { code: 'parameter_missing', param: 'mode' } } });
    expect(await call('POST', '/v1/checkout/sessions', { body: 'mode=subscription&line_items[0][price]=price_nope' })).toMatchObject({
      status: 400,
      body: { error: { code: 'resource_missing', param: 'line_items[0][price]' } },
    });
    expect(await call('POST', '/v1/checkout/sessions', { body: `${checkoutForm()}&customer=cus_x` })).toMatchObject({ status: 400, body: { error: { param: 'customer_email' } } });
  });

  it('answers a repeated Idempotency-Key with the saved result, and refuses it with other parameters', async () => {
    const first = await call('POST', '/v1/checkout/sessions', { body: checkoutForm(), headers: { 'idempotency-key': 'key-1' } });
    const again = await call('POST', '/v1/checkout/sessions', { body: checkoutForm(), headers: { 'idempotency-key': 'key-1' } });
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(stripe.requests.at(-1)?.replayed).toBe(true);
    const changed = await call('POST', '/v1/checkout/sessions', { body: checkoutForm('&client_reference_id=other'), headers: { 'idempotency-key': 'key-1' } });
    expect(changed).toMatchObject({ status: 400, body: { error: { type: 'idempotency_error' } } });
  });

  it('fails or slows the requests it is told to, as many times as it is told', async () => {
    stripe.fail({ method: 'GET', path: '/v1/subscriptions', status: 503, times: 1 });
    expect(await call('GET', '/v1/subscriptions/sub_x')).toMatchObject({ status: 503, body: { error: { type: 'api_error' } } });
    expect((await call('GET', '/v1/subscriptions/sub_x')).status).toBe(404);
    stripe.fail({ path: /^\/v1\/customers\//, delayMs: 300 });
    const started = Date.now();
    expect((await call('GET', '/v1/customers/cus_x')).status).toBe(404);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('completes a checkout as Stripe does: a customer, an active subscription whose items carry the period, a paid invoice, signed events', async () => {
    const session = await call('POST', '/v1/checkout/sessions', { body: `${checkoutForm()}&subscription_data[metadata][account_id]=usr_1` });
    const done = await stripe.completeCheckout(String(session.body.id));
    expect(done.events.map((event) => event.type)).toEqual(['customer.created', 'checkout.session.completed', 'customer.subscription.created', 'invoice.paid']);
    expect(done.deliveries).toEqual([]);
    const subscription = (await call('GET', `/v1/subscriptions/${done.subscriptionId}`)).body;
    const start = Date.parse('2026-11-20T12:00:00Z') / 1000;
    expect(subscription).toMatchObject({
      object: 'subscription',
      status: 'active',
      customer: done.customerId,
      metadata: { account_id: 'usr_1' },
      items: { object: 'list', data: [{ object: 'subscription_item', price: { id: TEST_PRICES.pro }, current_period_start: start, current_period_end: start + 30 * 86_400 }] },
    });
    expect(subscription).not.toHaveProperty('current_period_end');
    for (const event of done.events) {
      const verified = Stripe.webhooks.constructEvent(event.payload, event.signature, stripe.webhookSecret);
      expect(verified).toMatchObject({ id: event.id, object: 'event', type: event.type, api_version: Stripe.API_VERSION });
    }
    const invoice = JSON.parse(done.events[3]?.payload ?? '{}') as { data: { object: unknown } };
    expect(invoice.data.object).toMatchObject({ object: 'invoice', status: 'paid', parent: { subscription_details: { subscription: done.subscriptionId } } });
    expect((await call('GET', `/v1/checkout/sessions/${String(session.body.id)}`)).body).toMatchObject({ status: 'complete', subscription: done.subscriptionId, url: null });
  });

  it('serves the hosted checkout page, whose Pay button completes the session and goes on to success_url', async () => {
    const session = await call('POST', '/v1/checkout/sessions', { body: checkoutForm().replace('done', 'done%3Fsession%3D%7BCHECKOUT_SESSION_ID%7D') });
    const page = await fetch(String(session.body.url));
    expect(await page.text()).toContain('<button type="submit">Pay</button>');
    const paid = await fetch(String(session.body.url), { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`http://localhost/done?session=${String(session.body.id)}`);
    expect(stripe.checkoutSession(String(session.body.id)).status).toBe('complete');
  });
});

describe('the local Stripe server with a webhook URL', () => {
  let receiver: Server;
  let statuses: number[];
  const received: { signature: string | undefined; body: string }[] = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ signature: req.headers['stripe-signature'] as string | undefined, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(statuses.shift() ?? 200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('POSTs each event signed, records each delivery status, and redelivers on demand', async () => {
    const { port } = receiver.address() as AddressInfo;
    const stripe = await startStripeFixture({ webhookUrl: `http://127.0.0.1:${port}/hook`, webhookSecret: 'whsec_hook_test' });
    try {
      const session = await fetch(`${stripe.origin}/v1/checkout/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stripe.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: `mode=subscription&line_items[0][price]=${TEST_PRICES.starter}&customer_email=b%40example.com`,
      });
      statuses = [200, 500];
      const done = await stripe.completeCheckout(((await session.json()) as { id: string }).id);
      expect(done.deliveries.map((delivery) => delivery.status)).toEqual([200, 500, 200, 200]);
      for (const { body, signature } of received) expect(() => Stripe.webhooks.constructEvent(body, signature ?? '', 'whsec_hook_test')).not.toThrow();
      expect(await stripe.redeliver(done.events[1]?.id ?? '')).toMatchObject({ type: 'checkout.session.completed', attempt: 2, status: 200 });
      expect(stripe.deliveries).toHaveLength(5);
    } finally {
      await stripe.close();
    }
  });
});

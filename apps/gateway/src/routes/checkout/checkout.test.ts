import { createAccount } from '@hashwatch/accounts';
import { createManualBilling } from '@hashwatch/billing';
import { request, sessionCookieOf, useGateway } from '../../test-support/gateway-harness';

const PASSWORD = 'correct horse battery staple';

describe('POST /v1/api/checkout (manual billing)', () => {
  const gw = useGateway();
  const users = async () => Number((await gw.env.database.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM users')).rows[0]?.n);

  it('creates a pending account and answers the checkout id and the address where it waits for activation', async () => {
    const res = await request(gw.app).post('/v1/api/checkout').send({ email: 'Ann@Example.com', plan: 'pro', password: PASSWORD }).expect(201);
    expect(res.body).toEqual({ checkout_id: expect.stringMatching(/^chk_[A-Za-z0-9_-]+$/), url: `http://localhost:3000/checkout/${res.body.checkout_id}` });
    const user = await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { email: 'ann@example.com' } });
    expect(user).toMatchObject({ subscriptionStatus: 'pending', planId: 'pro', hashtagsLimit: 15, rateLimitPerMinute: 180 });
    expect(user.passwordHash).toMatch(/^scrypt\$/);
    expect(user.passwordHash).not.toContain(PASSWORD);
    const checkout = await gw.env.database.db.prisma.checkout.findUniqueOrThrow({ where: { id: res.body.checkout_id } });
    expect(checkout).toMatchObject({ userId: user.id, planId: 'pro', provider: 'manual', providerSessionId: null, url: res.body.url, completedAt: null });
  });

  it('keeps a pending account off every endpoint but the session until it is active, then lets it in', async () => {
    const { accountId } = await gw.checkout({ email: 'pending@example.com', password: PASSWORD });
    const session = await gw.signIn('pending@example.com', PASSWORD);
    expect(session.accountId).toBe(accountId);
    for (const [method, path] of [['get', '/v1/me'], ['get', '/v1/tracks'], ['get', '/v1/posts'], ['post', '/v1/apikey/regenerate']] as const) {
      const res = await request(gw.app)[method](path).set(session.headers);
      expect([path, res.status, res.body.error.code]).toEqual([path, 402, 'subscription_inactive']);
      expect(res.body.error.message).toMatch(/not active yet/);
    }
    await request(gw.app).get('/v1/session').set('Cookie', session.cookie).expect(200);
    await gw.env.database.db.pool.query(`UPDATE users SET subscription_status = 'active', current_period_end = now() + interval '30 days' WHERE id = $1`, [accountId]);
    await request(gw.app).get('/v1/me').set(session.headers).expect(200);
  });

  it('reuses the pending account of an email, with the new plan and password', async () => {
    const first = await gw.checkout({ email: 'twice@example.com', password: PASSWORD, plan: 'starter' });
    const second = await gw.checkout({ email: 'twice@example.com', password: 'another long password', plan: 'business' });
    expect(second.accountId).toBe(first.accountId);
    expect(second.checkoutId).not.toBe(first.checkoutId);
    expect(await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: first.accountId } })).toMatchObject({ planId: 'business', hashtagsLimit: 40 });
    await request(gw.app).post('/v1/session').send({ email: 'twice@example.com', password: PASSWORD }).expect(401);
    await request(gw.app).post('/v1/session').send({ email: 'twice@example.com', password: 'another long password' }).expect(200);
  });

  it('answers 409 for an email whose account has a subscription, and changes nothing of it', async () => {
    const { accountId } = await createAccount(gw.env.database.db.prisma, { email: 'active@example.com', planId: 'pro' });
    const before = await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: accountId } });
    const res = await request(gw.app).post('/v1/api/checkout').send({ email: 'ACTIVE@example.com', plan: 'starter', password: PASSWORD }).expect(409);
    expect(res.body.error.code).toBe('already_exists');
    expect(await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: accountId } })).toEqual(before);
    expect(await gw.env.database.db.prisma.checkout.count({ where: { userId: accountId } })).toBe(0);
  });

  it.each([
    [{ plan: 'starter', password: PASSWORD }, /^email: /],
    [{ email: 'not-an-email', plan: 'starter', password: PASSWORD }, /^email: must be an email address/],
    [{ email: 'a@example.com', plan: 'gold', password: PASSWORD }, /^plan: must be one of starter, pro, business/],
    [{ email: 'a@example.com', plan: 'starter', password: 'elevenchars' }, /^password: must be at least 12 characters/],
    [{ email: 'a@example.com', plan: 'starter', password: 'x'.repeat(201) }, /^password: must be at most 200 characters/],
    [{ email: 'a@example.com', plan: 'starter', password: 12345678901234 }, /^password: /],
    [{ email: 'a@example.com', plan: 'starter', password: PASSWORD, coupon: 'FREE' }, /unknown field coupon/],
  ])('answers 400 naming the field and creates nothing for %j', async (body, message) => {
    const before = await users();
    const res = await request(gw.app).post('/v1/api/checkout').send(body).expect(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(await users()).toBe(before);
  });

  it('answers 400 to a body that is not JSON and 413 to one over 64 KiB', async () => {
    await request(gw.app).post('/v1/api/checkout').set('Content-Type', 'application/json').send('{"email":').expect(400);
    const res = await request(gw.app).post('/v1/api/checkout').send({ email: 'big@example.com', plan: 'starter', password: PASSWORD, pad: 'x'.repeat(70_000) });
    expect([res.status, res.body.error.code]).toEqual([413, 'payload_too_large']);
  });

  it('allows 20 checkouts per minute per address, then 429 with Retry-After; another address is not affected', async () => {
    // As behind one proxy (TRUST_PROXY=1): the client address is the last X-Forwarded-For entry.
    const from = (address: string) => request(gw.app).post('/v1/api/checkout').set('X-Forwarded-For', address);
    const app = gw.app;
    app.set('trust proxy', 1);
    try {
      for (let n = 0; n < 20; n += 1) {
        await from('198.51.100.7').send({ email: `burst${n}@example.com`, plan: 'starter', password: PASSWORD }).expect(201);
      }
      const limited = await from('198.51.100.7').send({ email: 'burst20@example.com', plan: 'starter', password: PASSWORD }).expect(429);
      expect(limited.body.error).toEqual({ code: 'rate_limited', message: expect.stringMatching(/20 per minute per address; retry in \d+s/) });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      expect(await gw.env.database.db.prisma.user.count({ where: { email: 'burst20@example.com' } })).toBe(0);
      await from('198.51.100.8').send({ email: 'other@example.com', plan: 'starter', password: PASSWORD }).expect(201);
    } finally {
      app.set('trust proxy', false);
    }
  });
});

describe('POST /v1/api/checkout with BILLING_AUTO_ACTIVATE', () => {
  const gw = useGateway({
    selfService: () => ({ billing: createManualBilling({ publicUrl: 'https://watch.example.com/' }), autoActivate: true, publicUrl: 'https://watch.example.com/', mailer: null, stripeWebhook: null }),
  });

  it('activates the subscription at once for 30 days, and the account signs in to a working dashboard', async () => {
    const started = Date.now();
    const res = await request(gw.app).post('/v1/api/checkout').send({ email: 'demo@example.com', plan: 'business', password: PASSWORD }).expect(201);
    expect(res.body.url).toBe(`https://watch.example.com/checkout/${res.body.checkout_id}`);
    const user = await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { email: 'demo@example.com' } });
    expect(user.subscriptionStatus).toBe('active');
    expect(user.currentPeriodEnd.getTime() - started).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000);
    expect((await gw.env.database.db.prisma.checkout.findUniqueOrThrow({ where: { id: res.body.checkout_id } })).completedAt).not.toBeNull();
    const signedIn = await request(gw.app).post('/v1/session').send({ email: 'demo@example.com', password: PASSWORD }).expect(200);
    const me = await request(gw.app).get('/v1/me').set('Cookie', sessionCookieOf(signedIn)).expect(200);
    expect(me.body).toMatchObject({ email: 'demo@example.com', plan: 'business', subscription: { status: 'active' } });
  });

  it('lets a canceled account subscribe again on another plan, active at once, and refuses it to an active one', async () => {
    await request(gw.app).post('/v1/api/checkout').send({ email: 'back@example.com', plan: 'business', password: PASSWORD }).expect(201);
    const signedIn = await request(gw.app).post('/v1/session').send({ email: 'back@example.com', password: PASSWORD }).expect(200);
    const cookie = sessionCookieOf(signedIn);
    const csrf = (await request(gw.app).get('/v1/session').set('Cookie', cookie).expect(200)).body.csrf_token as string;
    const headers = { Cookie: cookie, 'X-CSRF-Token': csrf };
    const refused = await request(gw.app).post('/v1/billing/checkout').set(headers).send({ plan: 'pro' }).expect(409);
    expect(refused.body.error.code).toBe('already_exists');
    await gw.env.database.db.pool.query(`UPDATE users SET subscription_status = 'canceled' WHERE email = 'back@example.com'`);
    await request(gw.app).get('/v1/me').set(headers).expect(402);
    const res = await request(gw.app).post('/v1/billing/checkout').set(headers).send({ plan: 'starter' }).expect(201);
    expect(res.body.url).toBe(`https://watch.example.com/checkout/${res.body.checkout_id}`);
    const me = await request(gw.app).get('/v1/me').set(headers).expect(200);
    expect(me.body).toMatchObject({ plan: 'starter', subscription: { status: 'active' } });
    const user = await gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { email: 'back@example.com' } });
    expect(user).toMatchObject({ planId: 'starter', hashtagsLimit: 3 });
  });
});

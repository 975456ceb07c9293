import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import speakeasy from 'speakeasy';
import { startStripeFixture, TEST_PRICES, type StripeFixture } from '@hashwatch/billing/testing';
import { type AppProcess, createQueuePrefix, deletePrefixKeys, freePort, waitFor } from '@hashwatch/testing';
import { Redis } from 'ioredis';
import { runAdmin } from './harness/admin-cli';
import { startApp } from './harness/apps';
import { Browser, field } from './harness/browser';
import { createRunDatabase, type RunDatabase } from './harness/run-database';

const SHARED_POSTGRES = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const SHARED_REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';
const STEP_MS = 30_000;

const step = (at = Date.now()) => Math.floor(at / STEP_MS);
/** The code of TOTP time step `n`. */
const codeOf = (secret: string, n: number) => speakeasy.totp({ secret, encoding: 'base32', time: n * 30 + 1 });

/** Waits until the clock is in step `n` or later: a code of step n + 1 is then within the server's drift window. */
async function reachStep(n: number): Promise<void> {
  while (step() < n) await new Promise((resolve) => setTimeout(resolve, 250));
}

/**
 * The self-service journey through the built gateway processes, as a dashboard drives them: checkout with Stripe (its
 * signed webhooks) and with manual billing (the operator activates), sign-in, 2FA enrolment, sign-out, sign-in
 * through `/2fa/login`, key regeneration through the session, a password reset whose link arrives by SMTP in the
 * demo's alert inbox, and account deletion. Then no password, token or secret is in a dump of the database or in
 * the gateway's logs.
 */
describe('the self-service journey through the built gateway', () => {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'hw-e2e-journey-'));
  const queuePrefix = createQueuePrefix();
  const apps: AppProcess[] = [];
  let database: RunDatabase;
  let stripe: StripeFixture;
  let inboxUrl = '';
  let stripeGateway = '';
  let startStripeGateway: () => Promise<AppProcess> = () => Promise.reject(new Error('not started'));
  let manualGateway = '';

  beforeAll(async () => {
    database = await createRunDatabase(SHARED_POSTGRES);
    const [inboxPort, smtpPort, stripePort, manualPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    stripeGateway = `http://127.0.0.1:${stripePort}`;
    manualGateway = `http://127.0.0.1:${manualPort}`;
    stripe = await startStripeFixture({ webhookUrl: `${stripeGateway}/v1/billing/stripe/webhook` });
    apps.push(await startApp({ app: 'alert-inbox', label: 'alert-inbox', port: inboxPort, readyPath: '/healthz', logDir, env: { ALERT_INBOX_PORT: String(inboxPort), ALERT_INBOX_SMTP_PORT: String(smtpPort), LOG_LEVEL: 'info' } }));
    inboxUrl = `http://127.0.0.1:${inboxPort}`;
    const shared = {
      DATABASE_URL: database.url,
      REDIS_URL: SHARED_REDIS,
      QUEUE_PREFIX: queuePrefix,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      PUBLIC_URL: 'http://dashboard.test',
      LOG_LEVEL: 'info',
    };
    const stripeEnv = {
      ...shared, PORT: String(stripePort), BILLING_PROVIDER: 'stripe', STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
      STRIPE_PRICE_STARTER: TEST_PRICES.starter, STRIPE_PRICE_PRO: TEST_PRICES.pro, STRIPE_PRICE_BUSINESS: TEST_PRICES.business, STRIPE_API_BASE_URL: stripe.origin,
    };
    startStripeGateway = async () => {
      const handle = await startApp({ app: 'gateway', label: 'gateway-stripe', port: stripePort, readyPath: '/readyz', logDir, env: stripeEnv });
      apps.push(handle);
      return handle;
    };
    await startStripeGateway();
    apps.push(await startApp({ app: 'gateway', label: 'gateway-manual', port: manualPort, readyPath: '/readyz', logDir, env: { ...shared, PORT: String(manualPort) } }));
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await stripe?.close();
    await database?.drop();
    const redis = new Redis(SHARED_REDIS);
    await deletePrefixKeys(redis, queuePrefix);
    redis.disconnect();
    rmSync(logDir, { recursive: true, force: true });
  });

  /** Every secret the journey handled, to look for afterwards. */
  const secrets: string[] = [PASSWORD, NEW_PASSWORD];

  it('checks out with manual billing: waits (402) until the operator activates, then works', async () => {
    const browser = new Browser(manualGateway);
    const checkout = await browser.call('POST', '/api/checkout', { email: 'manual@example.com', plan: 'starter', password: PASSWORD });
    expect(checkout.status).toBe(201);
    expect(field(checkout, 'url')).toBe(`http://dashboard.test/checkout/${field(checkout, 'checkout_id')}`);
    expect((await browser.call('POST', '/session', { email: 'manual@example.com', password: PASSWORD })).status).toBe(200);
    const session = await browser.readSession();
    expect((await browser.call('GET', '/me')).status).toBe(402);
    await runAdmin(database.url, ['account:subscription', '--account', field(session, 'account_id'), '--status', 'active']);
    const me = await browser.call('GET', '/me');
    expect([me.status, me.body]).toEqual([200, expect.objectContaining({ subscription: expect.objectContaining({ status: 'active' }) })]);
    secrets.push(browser.cookie?.split('=')[1] ?? '');
  });

  it('walks checkout (Stripe) → activation → sign-in → 2FA → sign-out → /2fa/login → key → reset by mail → deletion', async () => {
    const browser = new Browser(stripeGateway);
    const email = 'journey@example.com';
    const checkout = await browser.call('POST', '/api/checkout', { email, plan: 'pro', password: PASSWORD });
    expect(checkout.status).toBe(201);
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    try {
      const { rows } = await pool.query<{ provider_session_id: string; user_id: string }>('SELECT provider_session_id, user_id FROM checkouts WHERE id = $1', [field(checkout, 'checkout_id')]);
      const { provider_session_id: sessionId, user_id: accountId } = rows[0]!;
      expect(field(checkout, 'url')).toBe(stripe.checkoutSession(sessionId).url);

      // Signed in while pending: the session works, the API answers 402 until Stripe says paid.
      expect((await browser.call('POST', '/session', { email, password: PASSWORD })).body).toEqual({ two_factor_required: false });
      await browser.readSession();
      expect((await browser.call('GET', '/tracks')).status).toBe(402);
      const paid = await stripe.completeCheckout(sessionId);
      expect(paid.deliveries.every((delivery) => delivery.status === 200)).toBe(true);
      expect((await browser.call('GET', '/me')).body).toMatchObject({ subscription: { status: 'active' } });
      expect((await browser.call('POST', '/tracks', { hashtag: 'journey' })).status).toBe(201);
      expect((await browser.call('POST', '/tracks', { hashtag: 'nocsrf' }, { 'x-csrf-token': 'forged' })).status).toBe(403);

      // 2FA enrolment through the session, then sign-out.
      const setup = await browser.call('POST', '/2fa/enable', {});
      const secret = field(setup, 'secret');
      secrets.push(secret, browser.cookie?.split('=')[1] ?? '');
      const enabledAt = step();
      const enabled = await browser.call('POST', '/2fa/enable', { code: codeOf(secret, enabledAt) });
      expect(enabled.body).toEqual({ enabled: true, recovery_codes: expect.any(Array) });
      const recoveryCodes = (enabled.body as { recovery_codes: string[] }).recovery_codes;
      expect(recoveryCodes).toHaveLength(10);
      // Looked for afterwards, like every other secret: only their hashes may be stored or logged.
      secrets.push(...recoveryCodes);
      expect((await browser.call('DELETE', '/session')).status).toBe(204);
      expect((await browser.call('GET', '/me')).status).toBe(401);

      // Sign-in with the 2FA step (the next step's code: the enrolment's is spent).
      const first = await browser.call('POST', '/session', { email, password: PASSWORD });
      expect(first.body).toEqual({ two_factor_required: true, login_token: expect.any(String) });
      expect(browser.cookie).toBeUndefined();
      const loginToken = field(first, 'login_token');
      secrets.push(loginToken);
      const login = await browser.call('POST', '/2fa/login', { login_token: loginToken, code: codeOf(secret, enabledAt + 1) });
      expect([login.status, login.body]).toEqual([200, { two_factor_required: false }]);
      await browser.readSession();
      secrets.push(browser.cookie?.split('=')[1] ?? '');

      // The API key, issued through the session with a fresh code, shown once.
      await reachStep(enabledAt + 1);
      const key = await browser.call('POST', '/apikey/regenerate', undefined, { 'x-totp-code': codeOf(secret, enabledAt + 2) });
      expect(key.status).toBe(200);
      const apiKey = field(key, 'api_key');
      secrets.push(apiKey);
      const viaKey = await fetch(`${stripeGateway}/v1/tracks`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(((await viaKey.json()) as { data: { hashtag: string }[] }).data.map((track) => track.hashtag)).toEqual(['journey']);

      // Password reset: the link arrives in the demo's inbox over SMTP; every session ends.
      expect((await browser.call('POST', '/session/password-reset', { email })).status).toBe(202);
      let link = '';
      await waitFor(
        async () => {
          const mails = ((await (await fetch(`${inboxUrl}/mail`)).json()) as { data: { to: string; text: string }[] }).data;
          link = /http:\/\/dashboard\.test\/reset-password\?token=\S+/.exec(mails.find((mail) => mail.to.includes(email))?.text ?? '')?.[0] ?? '';
          return link !== '';
        },
        15_000,
        'the reset mail in the inbox',
      );
      const token = new URL(link).searchParams.get('token') as string;
      secrets.push(token);
      expect((await new Browser(stripeGateway).call('POST', '/session/password-reset/confirm', { token, password: NEW_PASSWORD })).status).toBe(200);
      expect((await browser.call('GET', '/me')).status).toBe(401);
      expect((await new Browser(stripeGateway).call('POST', '/session', { email, password: PASSWORD })).status).toBe(401);
      expect((await new Browser(stripeGateway).call('POST', '/session', { email, password: NEW_PASSWORD })).body).toMatchObject({ two_factor_required: true });

      // Nothing secret in a dump of the database or in the gateways' logs.
      const { stdout: dump } = await promisify(execFile)('pg_dump', ['--data-only', '--dbname', database.url], { maxBuffer: 64 * 1024 * 1024 });
      const logs = apps.map((app) => readFileSync(app.logFile, 'utf8')).join('\n');
      for (const value of [...secrets, stripe.secretKey, stripe.webhookSecret].filter(Boolean)) {
        expect({ value, inDump: dump.includes(value), inLogs: logs.includes(value) }).toEqual({ value, inDump: false, inLogs: false });
      }

      // Deletion, with the key and a fresh code: the Stripe subscription is canceled and nothing of the account stays.
      await reachStep(enabledAt + 2);
      const deleted = await fetch(`${stripeGateway}/v1/me`, { method: 'DELETE', headers: { authorization: `Bearer ${apiKey}`, 'x-totp-code': codeOf(secret, enabledAt + 3) } });
      expect([deleted.status, await deleted.json()]).toEqual([200, { deleted: true }]);
      expect(stripe.subscription(paid.subscriptionId).status).toBe('canceled');
      const left = await pool.query<{ table_name: string; n: number }>(
        `SELECT 'users' AS table_name, count(*)::int AS n FROM users WHERE id = $1
          UNION ALL SELECT 'sessions', count(*)::int FROM sessions WHERE user_id = $1
          UNION ALL SELECT 'checkouts', count(*)::int FROM checkouts WHERE user_id = $1
          UNION ALL SELECT 'login_challenges', count(*)::int FROM login_challenges WHERE user_id = $1
          UNION ALL SELECT 'password_resets', count(*)::int FROM password_resets WHERE user_id = $1
          UNION ALL SELECT 'tracks', count(*)::int FROM tracks WHERE user_id = $1
          UNION ALL SELECT 'api_keys', count(*)::int FROM api_keys WHERE user_id = $1`,
        [accountId],
      );
      expect(left.rows.filter((row) => row.n > 0)).toEqual([]);
      expect((await new Browser(stripeGateway).call('POST', '/session', { email, password: NEW_PASSWORD })).status).toBe(401);
    } finally {
      await pool.end();
    }
  });

  it('applies a Stripe event that failed while the gateway was killed once Stripe delivers it again to the restarted process', async () => {
    const browser = new Browser(stripeGateway);
    const checkout = await browser.call('POST', '/api/checkout', { email: 'killed@example.com', plan: 'starter', password: PASSWORD });
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const { rows } = await pool.query<{ provider_session_id: string; user_id: string }>('SELECT provider_session_id, user_id FROM checkouts WHERE id = $1', [field(checkout, 'checkout_id')]);
      const { provider_session_id: sessionId, user_id: accountId } = rows[0]!;
      const status = async () => (await pool.query<{ subscription_status: string }>('SELECT subscription_status FROM users WHERE id = $1', [accountId])).rows[0]?.subscription_status;
      // Stripe's subscription cannot be read: the gateway answers 500 to the payment's events and records nothing.
      stripe.fail({ method: 'GET', path: '/v1/subscriptions', status: 500 });
      const paid = await stripe.completeCheckout(sessionId);
      expect(paid.deliveries.filter((delivery) => delivery.status === 500).length).toBeGreaterThan(0);
      expect(await status()).toBe('pending');
      // The gateway dies and comes back; Stripe's retries reach the new process.
      const gateway = apps.find((app) => app.label === 'gateway-stripe' && app.isRunning())!;
      gateway.signal('SIGKILL');
      await gateway.exited;
      await startStripeGateway();
      stripe.clearFaults();
      for (const event of paid.events) expect((await stripe.redeliver(event.id)).status).toBe(200);
      expect(await status()).toBe('active');
      const recorded = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM billing_events WHERE event_id = ANY($1::text[])', [paid.events.map((event) => event.id)]);
      expect(recorded.rows[0]?.n).toBe(paid.events.length);
      // A further delivery of each is a duplicate: nothing changes.
      for (const event of paid.events) expect((await stripe.redeliver(event.id)).status).toBe(200);
      expect(await status()).toBe('active');
    } finally {
      await pool.end();
    }
  });
});

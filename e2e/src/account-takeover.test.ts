import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import speakeasy from 'speakeasy';
import { type AppProcess, createQueuePrefix, deletePrefixKeys, freePort, waitFor } from '@hashwatch/testing';
import { Redis } from 'ioredis';
import { runAdmin } from './harness/admin-cli';
import { startApp } from './harness/apps';
import { Browser, field } from './harness/browser';
import { createRunDatabase, type RunDatabase } from './harness/run-database';

const SHARED_POSTGRES = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const SHARED_REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SQUATTER_PASSWORD = 'the squatter chose this one';
const OWNER_PASSWORD = 'the owner of the address';

/** The `error.code` of an error answer. */
const errorCode = (answer: { body?: Record<string, unknown> }): unknown => (answer.body?.error as { code?: unknown } | undefined)?.code;

/**
 * Issue 25's account-takeover paths through the built gateway as a process, with mail through the demo's alert inbox
 * (SMTP): a checkout by the address's owner ends the session of whoever checked out first with that address; a leaked
 * API key cannot turn 2FA on (CONTRACT 4: it needs the dashboard password); enrolment answers recovery codes that sign
 * in once each; every security change reaches the address; `admin account:2fa-reset` clears 2FA and ends sessions.
 */
describe('account takeover paths through the built gateway', () => {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'hw-e2e-takeover-'));
  const queuePrefix = createQueuePrefix();
  const apps: AppProcess[] = [];
  let database: RunDatabase;
  let origin = '';
  let inboxUrl = '';

  beforeAll(async () => {
    database = await createRunDatabase(SHARED_POSTGRES);
    const [inboxPort, smtpPort, port] = [await freePort(), await freePort(), await freePort()];
    origin = `http://127.0.0.1:${port}`;
    inboxUrl = `http://127.0.0.1:${inboxPort}`;
    apps.push(await startApp({ app: 'alert-inbox', label: 'alert-inbox', port: inboxPort, readyPath: '/healthz', logDir, env: { ALERT_INBOX_PORT: String(inboxPort), ALERT_INBOX_SMTP_PORT: String(smtpPort), LOG_LEVEL: 'info' } }));
    apps.push(
      await startApp({
        app: 'gateway',
        label: 'gateway',
        port,
        readyPath: '/readyz',
        logDir,
        env: {
          DATABASE_URL: database.url,
          REDIS_URL: SHARED_REDIS,
          QUEUE_PREFIX: queuePrefix,
          SECRETS_KEY: randomBytes(32).toString('base64'),
          SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
          PUBLIC_URL: 'http://dashboard.test',
          PORT: String(port),
          LOG_LEVEL: 'info',
        },
      }),
    );
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await database?.drop();
    const redis = new Redis(SHARED_REDIS);
    await deletePrefixKeys(redis, queuePrefix);
    redis.disconnect();
    rmSync(logDir, { recursive: true, force: true });
  });

  /** The subjects of the mails the inbox holds for `email`. */
  async function subjectsFor(email: string): Promise<string[]> {
    const mails = ((await (await fetch(`${inboxUrl}/mail`)).json()) as { data: { to: string; subject: string }[] }).data;
    return mails.filter((mail) => mail.to.includes(email)).map((mail) => mail.subject);
  }

  async function waitForMail(email: string, subject: string, count = 1): Promise<void> {
    await waitFor(async () => (await subjectsFor(email)).filter((s) => s === subject).length >= count, 10_000, `${count} × "${subject}" to ${email}`);
  }

  it('squatting, a leaked key, recovery codes and the operator reset, each closed', async () => {
    const email = 'owner@example.com';

    // 1. Someone checks out first with the owner's address and signs in to the pending account.
    const squatter = new Browser(origin);
    expect((await squatter.call('POST', '/api/checkout', { email, plan: 'pro', password: SQUATTER_PASSWORD })).status).toBe(201);
    expect((await squatter.call('POST', '/session', { email, password: SQUATTER_PASSWORD })).status).toBe(200);
    expect((await squatter.readSession()).status).toBe(200);
    // The owner checks out: the squatter's session and password end, and the address hears of it.
    const owner = new Browser(origin);
    expect((await owner.call('POST', '/api/checkout', { email, plan: 'pro', password: OWNER_PASSWORD })).status).toBe(201);
    expect((await squatter.call('GET', '/session')).status).toBe(401);
    expect((await new Browser(origin).call('POST', '/session', { email, password: SQUATTER_PASSWORD })).status).toBe(401);
    await waitForMail(email, 'A Hashwatch checkout was started with your email', 2);

    expect((await owner.call('POST', '/session', { email, password: OWNER_PASSWORD })).status).toBe(200);
    const accountId = field(await owner.readSession(), 'account_id');
    await runAdmin(database.url, ['account:subscription', '--account', accountId, '--status', 'active']);
    const key = field(await owner.call('POST', '/apikey/regenerate'), 'api_key');
    await waitForMail(email, 'Your Hashwatch API key was regenerated');

    // 2. The key leaks. With it alone, 2FA cannot be turned on: the dashboard password is asked for.
    const withKey = { authorization: `Bearer ${key}` };
    for (const body of [{}, { password: SQUATTER_PASSWORD }]) {
      const refused = await new Browser(origin).call('POST', '/2fa/enable', body, withKey);
      expect([refused.status, errorCode(refused)]).toEqual([403, 'invalid_credentials']);
    }
    expect((await new Browser(origin).call('GET', '/me', undefined, withKey)).body).toMatchObject({ two_factor_enabled: false });

    // The owner enrols through the session and gets ten recovery codes, shown once.
    const setup = await owner.call('POST', '/2fa/enable', {});
    const secret = field(setup, 'secret');
    const enabled = await owner.call('POST', '/2fa/enable', { code: speakeasy.totp({ secret, encoding: 'base32' }) });
    expect(enabled.status).toBe(200);
    const recovery = (enabled.body as { recovery_codes: string[] }).recovery_codes;
    expect(recovery).toHaveLength(10);
    await waitForMail(email, 'Two-factor authentication was turned on for your Hashwatch account');

    // The phone is lost: a recovery code signs in, once.
    const phoneless = new Browser(origin);
    const step = await phoneless.call('POST', '/session', { email, password: OWNER_PASSWORD });
    expect(step.body).toMatchObject({ two_factor_required: true });
    expect((await phoneless.call('POST', '/2fa/login', { login_token: field(step, 'login_token'), code: recovery[0] })).status).toBe(200);
    expect((await phoneless.readSession()).status).toBe(200);
    const again = await new Browser(origin).call('POST', '/session', { email, password: OWNER_PASSWORD });
    const replayed = await new Browser(origin).call('POST', '/2fa/login', { login_token: field(again, 'login_token'), code: recovery[0] });
    expect([replayed.status, errorCode(replayed)]).toEqual([403, 'invalid_two_factor_code']);
    await waitForMail(email, 'A Hashwatch recovery code was used');

    // 3. The operator turns 2FA off: every session ends, and a password alone signs in again.
    expect(await runAdmin(database.url, ['account:2fa-reset', '--account', accountId])).toEqual({ account_id: accountId, two_factor_enabled: false });
    expect((await owner.call('GET', '/session')).status).toBe(401);
    expect((await phoneless.call('GET', '/session')).status).toBe(401);
    const fresh = new Browser(origin);
    expect((await fresh.call('POST', '/session', { email, password: OWNER_PASSWORD })).body).toEqual({ two_factor_required: false });
    expect((await fresh.call('GET', '/me')).body).toMatchObject({ two_factor_enabled: false });
    // The recovery codes of the enrolment that was reset are gone with it.
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      expect((await pool.query('SELECT count(*)::int AS n FROM recovery_codes WHERE user_id = $1', [accountId])).rows[0]).toEqual({ n: 0 });
    } finally {
      await pool.end();
    }
    const mails = ((await (await fetch(`${inboxUrl}/mail`)).json()) as { data: { text: string }[] }).data;
    for (const mail of mails) {
      expect(mail.text).not.toContain(key);
      for (const code of recovery) expect(mail.text).not.toContain(code);
    }
  });
});

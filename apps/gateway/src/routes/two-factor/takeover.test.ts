import { waitFor } from '@hashwatch/testing';
import { codeAt, request, sessionCookieOf, useGateway } from '../../test-support/gateway-harness';
import { startMailReceiver, type MailReceiver } from '@hashwatch/testing';
import { mailingSelfService } from '../../test-support/mail-receiver';

const PASSWORD = 'correct horse battery staple';
const STEP = 30_000;
const later = (date: Date, ms: number) => new Date(date.getTime() + ms);

describe('2FA against a leaked API key: re-authentication, recovery codes, security mail', () => {
  let receiver: MailReceiver;
  beforeAll(async () => {
    receiver = await startMailReceiver();
  });
  const gw = useGateway({ selfService: () => mailingSelfService(receiver, 'https://watch.example.com', false) });
  afterAll(() => receiver.close());
  afterEach(async () => {
    gw.setNow(null);
    await gw.resetLimits();
  });

  let counter = 0;
  /** An active account made by checkout, so it has a dashboard password, and its API key. */
  async function paidAccount(): Promise<{ email: string; accountId: string; auth: { Authorization: string } }> {
    counter += 1;
    const email = `owner${counter}@example.com`;
    const { accountId } = await gw.checkout({ email, password: PASSWORD }, true);
    const session = await gw.signIn(email, PASSWORD);
    const key = await request(gw.app).post('/v1/apikey/regenerate').set(session.headers).expect(200);
    // That regeneration started the account's 15 minutes: the tests regenerate again.
    await gw.resetLimits();
    return { email, accountId, auth: { Authorization: `Bearer ${key.body.api_key}` } };
  }

  /** The subjects of the security mails `email` received so far (checkout mails left out). */
  const subjectsFor = (email: string): string[] =>
    receiver.mails.filter((mail) => mail.to.includes(email) && !/checkout/i.test(mail.subject)).map((mail) => mail.subject);

  async function twoFactorRow(accountId: string) {
    const { rows } = await gw.env.database.db.pool.query<{ on: boolean; pending: boolean; codes: number }>(
      `SELECT totp_secret_enc IS NOT NULL AS on, totp_pending_secret_enc IS NOT NULL AS pending,
              (SELECT count(*)::int FROM recovery_codes WHERE user_id = $1) AS codes
         FROM users WHERE id = $1`,
      [accountId],
    );
    return rows[0];
  }

  it('refuses to enrol or disable 2FA with an API key alone on an account with a password, and changes nothing', async () => {
    const { accountId, auth } = await paidAccount();
    for (const body of [{}, { password: 'not the password at all' }]) {
      const res = await request(gw.app).post('/v1/2fa/enable').set(auth).send(body);
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({ code: 'invalid_credentials', message: expect.stringContaining('password') });
    }
    expect(await twoFactorRow(accountId)).toEqual({ on: false, pending: false, codes: 0 });

    // With the password the key holder may enrol; confirming also needs it.
    const t0 = new Date(Math.floor(Date.now() / STEP) * STEP + 5_000);
    gw.setNow(t0);
    const setup = await request(gw.app).post('/v1/2fa/enable').set(auth).send({ password: PASSWORD }).expect(200);
    const confirmWithout = await request(gw.app).post('/v1/2fa/enable').set(auth).send({ code: codeAt(setup.body.secret, t0) });
    expect(confirmWithout.status).toBe(403);
    expect(confirmWithout.body.error.code).toBe('invalid_credentials');
    expect(await twoFactorRow(accountId)).toEqual({ on: false, pending: true, codes: 0 });
    const enabled = await request(gw.app).post('/v1/2fa/enable').set(auth).send({ code: codeAt(setup.body.secret, t0), password: PASSWORD }).expect(200);
    expect(enabled.body.recovery_codes).toHaveLength(10);
    expect(await twoFactorRow(accountId)).toEqual({ on: true, pending: false, codes: 10 });

    // Disabling with a right code but no password: refused, 2FA stays on.
    const t1 = later(t0, STEP);
    gw.setNow(t1);
    const disableWithout = await request(gw.app).post('/v1/2fa/disable').set(auth).send({ code: codeAt(setup.body.secret, t1) });
    expect(disableWithout.status).toBe(403);
    expect(disableWithout.body.error.code).toBe('invalid_credentials');
    expect(await twoFactorRow(accountId)).toEqual({ on: true, pending: false, codes: 10 });
    // Six 2FA requests in 5 minutes, refused ones included: the seventh would be 429 (guessing passwords costs too).
    const seventh = await request(gw.app).post('/v1/2fa/disable').set(auth).send({ code: codeAt(setup.body.secret, t1), password: PASSWORD });
    expect(seventh.status).toBe(429);
    await gw.resetLimits();
    await request(gw.app).post('/v1/2fa/disable').set(auth).send({ code: codeAt(setup.body.secret, t1), password: PASSWORD }).expect(200, { enabled: false });
    expect(await twoFactorRow(accountId)).toEqual({ on: false, pending: false, codes: 0 });
  });

  it('lets a signed-in session enrol without the password, and documents the 403 in the OpenAPI document', async () => {
    const { email, accountId } = await paidAccount();
    const session = await gw.signIn(email, PASSWORD);
    const { recoveryCodes } = await gw.enableTwoFactor(session.headers);
    expect(recoveryCodes).toHaveLength(10);
    expect(await twoFactorRow(accountId)).toMatchObject({ on: true, codes: 10 });

    const doc = await request(gw.app).get('/v1/openapi.json').expect(200);
    for (const path of ['/v1/2fa/enable', '/v1/2fa/disable']) {
      const refused = doc.body.paths[path].post.responses['403'];
      expect(JSON.stringify(refused)).toContain('invalid_credentials');
    }
    expect(doc.body.paths['/v1/2fa/enable'].post.description).toContain('password');
  });

  it('takes each recovery code once in place of a code: at sign-in, in X-TOTP-Code and to disable; every change is mailed', async () => {
    const { email, accountId } = await paidAccount();
    const session = await gw.signIn(email, PASSWORD);
    const { recoveryCodes } = await gw.enableTwoFactor(session.headers);
    gw.setNow(null);
    const [first, second, third] = recoveryCodes as [string, string, string];

    const signIn = async () => (await request(gw.app).post('/v1/session').send({ email, password: PASSWORD }).expect(200)).body.login_token as string;
    // Upper case and without hyphens is the same code.
    const loggedIn = await request(gw.app).post('/v1/2fa/login').send({ login_token: await signIn(), code: first.toUpperCase().replace(/-/g, '') }).expect(200);
    const cookie = sessionCookieOf(loggedIn);
    const again = await request(gw.app).post('/v1/2fa/login').send({ login_token: await signIn(), code: first });
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('invalid_two_factor_code');
    expect(await twoFactorRow(accountId)).toMatchObject({ codes: 9 });

    const csrf = (await request(gw.app).get('/v1/session').set('Cookie', cookie).expect(200)).body.csrf_token as string;
    const regenerated = await request(gw.app).post('/v1/apikey/regenerate').set({ Cookie: cookie, 'X-CSRF-Token': csrf }).set('X-TOTP-Code', second).expect(200);
    expect(regenerated.body.api_key).toMatch(/^hw_live_/);
    const key = { Authorization: `Bearer ${regenerated.body.api_key}` };
    expect(await twoFactorRow(accountId)).toMatchObject({ codes: 8 });

    await request(gw.app).post('/v1/2fa/disable').set(key).send({ code: third, password: PASSWORD }).expect(200, { enabled: false });
    expect(await twoFactorRow(accountId)).toEqual({ on: false, pending: false, codes: 0 });

    const recoveryMails = () => subjectsFor(email).filter((subject) => subject === 'A Hashwatch recovery code was used');
    // Each mail is sent on its own: wait for the ones this test counts, not for a total other mails can make up.
    const changes = [
      'Two-factor authentication was turned on for your Hashwatch account',
      'Your Hashwatch API key was regenerated',
      'Two-factor authentication was turned off for your Hashwatch account',
    ];
    await waitFor(
      async () => recoveryMails().length >= 3 && changes.every((subject) => subjectsFor(email).includes(subject)),
      10_000,
      'three recovery-code mails and a mail for each change',
    );
    expect(recoveryMails()).toHaveLength(3);
    const used = receiver.mails.filter((mail) => mail.to.includes(email) && mail.subject === 'A Hashwatch recovery code was used');
    expect(used.map((mail) => /(\d+) unused recovery codes? (?:is|are) left/.exec(mail.text)?.[1]).sort()).toEqual(['7', '8', '9']);
    // No mail carries a code or a key.
    for (const mail of receiver.mails) {
      for (const code of recoveryCodes) expect(mail.text).not.toContain(code);
      expect(mail.text).not.toContain(regenerated.body.api_key);
    }
  });

  it('spends one recovery code once when two requests race with it', async () => {
    const { email, accountId } = await paidAccount();
    const session = await gw.signIn(email, PASSWORD);
    const { recoveryCodes } = await gw.enableTwoFactor(session.headers);
    gw.setNow(null);
    const code = recoveryCodes[0] as string;
    const tokens = await Promise.all([1, 2, 3].map(async () => (await request(gw.app).post('/v1/session').send({ email, password: PASSWORD }).expect(200)).body.login_token as string));
    const answers = await Promise.all(tokens.map((token) => request(gw.app).post('/v1/2fa/login').send({ login_token: token, code })));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 403, 403]);
    expect(await twoFactorRow(accountId)).toMatchObject({ codes: 9 });
  });

  it('refuses a recovery code that is not the account\'s, and one after 2FA was turned off and on again', async () => {
    const a = await paidAccount();
    const b = await paidAccount();
    const sessionA = await gw.signIn(a.email, PASSWORD);
    const sessionB = await gw.signIn(b.email, PASSWORD);
    const codesA = (await gw.enableTwoFactor(sessionA.headers)).recoveryCodes;
    const { secret: secretB, t0, recoveryCodes: oldB } = await gw.enableTwoFactor(sessionB.headers);
    const t1 = later(t0, STEP);
    gw.setNow(t1);
    const foreign = await request(gw.app).post('/v1/apikey/regenerate').set(sessionB.headers).set('X-TOTP-Code', codesA[0] as string);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('invalid_two_factor_code');

    await request(gw.app).post('/v1/2fa/disable').set(sessionB.headers).send({ code: codeAt(secretB, t1) }).expect(200);
    await gw.resetLimits();
    await gw.enableTwoFactor(sessionB.headers);
    const stale = await request(gw.app).post('/v1/apikey/regenerate').set(sessionB.headers).set('X-TOTP-Code', oldB[1] as string);
    expect(stale.status).toBe(403);
    expect(stale.body.error.code).toBe('invalid_two_factor_code');
    expect(await twoFactorRow(b.accountId)).toMatchObject({ on: true, codes: 10 });
  });

  it('mails a password change and a password reset', async () => {
    const { email } = await paidAccount();
    const session = await gw.signIn(email, PASSWORD);
    await request(gw.app).post('/v1/me/password').set(session.headers).send({ current_password: PASSWORD, new_password: 'another long passphrase' }).expect(200);
    await waitFor(async () => subjectsFor(email).includes('Your Hashwatch password was changed'), 10_000, 'password change mail');

    await request(gw.app).post('/v1/session/password-reset').send({ email }).expect(202);
    await waitFor(async () => subjectsFor(email).includes('Reset your Hashwatch password'), 10_000, 'reset link mail');
    const reset = receiver.mails.find((mail) => mail.to.includes(email) && mail.subject === 'Reset your Hashwatch password');
    const token = new URL(/https:\/\/\S+/.exec(reset?.text ?? '')?.[0] ?? 'https://x').searchParams.get('token');
    await request(gw.app).post('/v1/session/password-reset/confirm').send({ token, password: PASSWORD }).expect(200);
    await waitFor(async () => subjectsFor(email).includes('Your Hashwatch password was reset'), 10_000, 'password reset mail');
  });
});

import { DEFAULT_HASHING_LIMITS, setPasswordHashingLimits } from '@hashwatch/secrets';
import { codeAt, request, sessionCookieOf, useGateway, type BrowserSession } from '../../test-support/gateway-harness';

const PASSWORD = 'correct horse battery staple';
const HOUR = 3_600_000;
const later = (date: Date, ms: number) => new Date(date.getTime() + ms);

describe('sessions', () => {
  const gw = useGateway();
  afterEach(async () => {
    gw.setNow(null);
    await gw.resetLimits();
  });
  let counter = 0;

  /** An active account with a password, signed in. */
  async function activeSession(): Promise<BrowserSession & { email: string }> {
    counter += 1;
    const email = `s${counter}-${Date.now()}@example.com`;
    await gw.checkout({ email, password: PASSWORD, plan: 'pro' }, true);
    return { ...(await gw.signIn(email, PASSWORD)), email };
  }

  it('signs in with a cookie that is HttpOnly, SameSite=Lax, Path=/, not Secure over plain HTTP, and stores only its hash', async () => {
    const { accountId } = await gw.checkout({ email: 'cookie@example.com', password: PASSWORD }, true);
    const res = await request(gw.app).post('/v1/session').send({ email: 'COOKIE@example.com', password: PASSWORD }).expect(200);
    expect(res.body).toEqual({ two_factor_required: false });
    const line = (res.headers['set-cookie'] as unknown as string[]).find((cookie) => cookie.startsWith('hw_session=')) as string;
    expect(line).toMatch(/^hw_session=hws_[A-Za-z0-9_-]{43}; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
    const token = sessionCookieOf(res).slice('hw_session='.length);
    const { rows } = await gw.env.database.db.pool.query<{ token_hash: Buffer }>('SELECT token_hash FROM sessions WHERE user_id = $1', [accountId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash.toString('utf8')).not.toContain(token);
    expect(rows[0]?.token_hash.length).toBe(32);
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    await gw.checkout({ email: 'known@example.com', password: PASSWORD }, true);
    const wrong = await request(gw.app).post('/v1/session').send({ email: 'known@example.com', password: 'not the password' }).expect(401);
    const unknown = await request(gw.app).post('/v1/session').send({ email: 'nobody@example.com', password: 'not the password' }).expect(401);
    expect(wrong.body).toEqual({ error: { code: 'invalid_credentials', message: 'the email or the password is wrong' } });
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('refuses an account an operator created without a password', async () => {
    const { auth } = await gw.account();
    const me = await request(gw.app).get('/v1/me').set(auth).expect(200);
    await request(gw.app).post('/v1/session').send({ email: me.body.email, password: 'anything at all' }).expect(401);
  });

  it('answers 400 naming the field to a bad sign-in body', async () => {
    const res = await request(gw.app).post('/v1/session').send({ email: 'x@example.com' }).expect(400);
    expect(res.body.error.message).toMatch(/^password: /);
    await request(gw.app).post('/v1/session').send({ email: 'x@example.com', password: 'p', remember: true }).expect(400);
  });

  it('locks sign-in for an email after 10 failures in 15 minutes, even for the right password', async () => {
    await gw.checkout({ email: 'locked@example.com', password: PASSWORD }, true);
    for (let n = 0; n < 10; n += 1) await request(gw.app).post('/v1/session').send({ email: 'locked@example.com', password: `wrong ${n}` }).expect(401);
    const res = await request(gw.app).post('/v1/session').send({ email: 'locked@example.com', password: PASSWORD }).expect(429);
    expect(res.body.error.message).toMatch(/10 failures in 15 minutes; retry in 1[45]m/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(14 * 60);
  });

  it('cuts a burst of parallel guesses off at 10: each attempt is counted before the password is checked', async () => {
    await gw.checkout({ email: 'burst@example.com', password: PASSWORD }, true);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, n) => request(gw.app).post('/v1/session').send({ email: 'burst@example.com', password: `guess ${n}` })));
    expect(answers.filter((res) => res.status === 401)).toHaveLength(10);
    expect(answers.filter((res) => res.status === 429)).toHaveLength(20);
  });

  it('does not count a successful sign-in against the limit', async () => {
    await gw.checkout({ email: 'often@example.com', password: PASSWORD }, true);
    for (let n = 0; n < 12; n += 1) await request(gw.app).post('/v1/session').send({ email: 'often@example.com', password: PASSWORD }).expect(200);
  });

  it('counts successful sign-ins too: the 31st in 15 minutes for one email answers 429 with Retry-After', async () => {
    await gw.checkout({ email: 'replayed@example.com', password: PASSWORD }, true);
    for (let n = 0; n < 30; n += 1) await request(gw.app).post('/v1/session').send({ email: 'replayed@example.com', password: PASSWORD }).expect(200);
    const refused = await request(gw.app).post('/v1/session').send({ email: 'replayed@example.com', password: PASSWORD }).expect(429);
    expect(refused.body.error).toEqual({ code: 'rate_limited', message: expect.stringMatching(/^sign-in is limited to 30 per 15 minutes; retry in 1[45]m/) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(14 * 60);
  });

  it('counts successful sign-ins from one address, whatever the accounts: the 31st answers 429', async () => {
    const app = gw.app;
    app.set('trust proxy', 1);
    try {
      for (const email of ['one@example.com', 'two@example.com', 'three@example.com']) await gw.checkout({ email, password: PASSWORD }, true);
      const from = (address: string, email: string) => request(app).post('/v1/session').set('X-Forwarded-For', address).send({ email, password: PASSWORD });
      for (let n = 0; n < 30; n += 1) await from('203.0.113.30', n % 2 ? 'one@example.com' : 'two@example.com').expect(200);
      const refused = await from('203.0.113.30', 'three@example.com').expect(429);
      expect(refused.headers['retry-after']).toBeDefined();
      await from('203.0.113.31', 'three@example.com').expect(200);
    } finally {
      app.set('trust proxy', false);
    }
  });

  it('keeps at most 20 live sessions per account: a new sign-in ends the oldest', async () => {
    const first = await activeSession();
    const later19 = [];
    for (let n = 0; n < 20; n += 1) later19.push(await gw.signIn(first.email, PASSWORD));
    expect(await gw.env.database.db.prisma.session.count({ where: { userId: first.accountId } })).toBe(20);
    await request(gw.app).get('/v1/session').set('Cookie', first.cookie).expect(401);
    for (const session of [later19[0], later19[19]]) await request(gw.app).get('/v1/session').set('Cookie', session?.cookie ?? '').expect(200);
  });

  it('answers 503 unavailable with Retry-After when the password hashing line is full', async () => {
    await gw.checkout({ email: 'crowd@example.com', password: PASSWORD }, true);
    setPasswordHashingLimits({ concurrency: 1, waiting: 0, retryAfterSeconds: 2 });
    try {
      const answers = await Promise.all(Array.from({ length: 3 }, () => request(gw.app).post('/v1/session').send({ email: 'crowd@example.com', password: PASSWORD })));
      const busy = answers.filter((res) => res.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      expect(busy[0]?.body).toEqual({ error: { code: 'unavailable', message: 'too many password checks are waiting; retry shortly' } });
      expect(busy[0]?.headers['retry-after']).toBe('2');
    } finally {
      setPasswordHashingLimits(DEFAULT_HASHING_LIMITS);
    }
  });

  it('locks sign-in from an address after 10 failures in 15 minutes, whatever the emails', async () => {
    const app = gw.app;
    app.set('trust proxy', 1);
    try {
      await gw.checkout({ email: 'victim@example.com', password: PASSWORD }, true);
      for (let n = 0; n < 10; n += 1) {
        await request(app).post('/v1/session').set('X-Forwarded-For', '203.0.113.9').send({ email: `guess${n}@example.com`, password: 'wrong' }).expect(401);
      }
      await request(app).post('/v1/session').set('X-Forwarded-For', '203.0.113.9').send({ email: 'victim@example.com', password: PASSWORD }).expect(429);
      await request(app).post('/v1/session').set('X-Forwarded-For', '203.0.113.10').send({ email: 'victim@example.com', password: PASSWORD }).expect(200);
    } finally {
      app.set('trust proxy', false);
    }
  });

  it('answers GET /v1/session with the account, a CSRF token and the earlier of the two expiries', async () => {
    const t0 = new Date();
    gw.setNow(t0);
    const session = await activeSession();
    const res = await request(gw.app).get('/v1/session').set('Cookie', session.cookie).expect(200);
    expect(res.body).toEqual({ email: session.email, account_id: session.accountId, csrf_token: session.csrf, expires_at: later(t0, 12 * HOUR).toISOString() });
    await request(gw.app).get('/v1/session').expect(401);
    await request(gw.app).get('/v1/session').set('Cookie', 'hw_session=hws_unknownunknownunknownunknownunknownunknown12').expect(401);
  });

  it('ends a session after 12 hours unused, and moves that end forward with use', async () => {
    const t0 = new Date();
    gw.setNow(t0);
    const session = await activeSession();
    gw.setNow(later(t0, 11 * HOUR));
    await request(gw.app).get('/v1/tracks').set(session.headers).expect(200);
    gw.setNow(later(t0, 22 * HOUR));
    const res = await request(gw.app).get('/v1/session').set('Cookie', session.cookie).expect(200);
    expect(res.body.expires_at).toBe(later(t0, 34 * HOUR).toISOString());
    gw.setNow(later(t0, 34 * HOUR + 1000));
    const expired = await request(gw.app).get('/v1/tracks').set(session.headers).expect(401);
    expect(expired.body.error).toEqual({ code: 'unauthorized', message: 'the session is unknown, ended or expired: sign in again' });
  });

  it('removes the account’s ended sessions when it signs in again', async () => {
    const t0 = new Date();
    gw.setNow(t0);
    const session = await activeSession();
    gw.setNow(later(t0, 13 * HOUR));
    await gw.signIn(session.email, PASSWORD);
    expect(await gw.env.database.db.prisma.session.count({ where: { userId: session.accountId } })).toBe(1);
  });

  it('ends a session 7 days after sign-in, however much it is used', async () => {
    const t0 = new Date();
    gw.setNow(t0);
    const session = await activeSession();
    for (let hours = 10; hours < 7 * 24; hours += 10) {
      gw.setNow(later(t0, hours * HOUR));
      await request(gw.app).get('/v1/session').set('Cookie', session.cookie).expect(200);
    }
    gw.setNow(later(t0, 7 * 24 * HOUR - 1000));
    const last = await request(gw.app).get('/v1/session').set('Cookie', session.cookie).expect(200);
    expect(last.body.expires_at).toBe(later(t0, 7 * 24 * HOUR).toISOString());
    gw.setNow(later(t0, 7 * 24 * HOUR));
    await request(gw.app).get('/v1/session').set('Cookie', session.cookie).expect(401);
  });

  it('needs X-CSRF-Token on unsafe methods through a session: missing or wrong is 403 csrf_failed and changes nothing', async () => {
    const session = await activeSession();
    const missing = await request(gw.app).post('/v1/tracks').set('Cookie', session.cookie).send({ hashtag: 'btc' }).expect(403);
    expect(missing.body.error.code).toBe('csrf_failed');
    // The account's headers, as on every answer to a valid credential; the forged request was not counted.
    expect(missing.headers['x-ratelimit-limit']).toBe('180');
    const counted = await request(gw.app).get('/v1/tracks').set('Cookie', session.cookie).expect(200);
    expect(Number(counted.headers['x-ratelimit-remaining'])).toBe(Number(missing.headers['x-ratelimit-remaining']) - 1);
    const other = await activeSession();
    await request(gw.app).post('/v1/tracks').set({ Cookie: session.cookie, 'X-CSRF-Token': other.csrf }).send({ hashtag: 'btc' }).expect(403);
    await request(gw.app).post('/v1/tracks').set({ Cookie: session.cookie, 'X-CSRF-Token': '' }).send({ hashtag: 'btc' }).expect(403);
    expect((await request(gw.app).get('/v1/tracks').set('Cookie', session.cookie).expect(200)).body.data).toEqual([]);
    const created = await request(gw.app).post('/v1/tracks').set(session.headers).send({ hashtag: 'btc' }).expect(201);
    expect(created.body.hashtag).toBe('btc');
  });

  it('answers through a session exactly as through the key: same cap, same headers, and a key wins over a cookie', async () => {
    const session = await activeSession();
    const res = await request(gw.app).get('/v1/me').set('Cookie', session.cookie).expect(200);
    expect(res.headers['x-ratelimit-limit']).toBe('180');
    const remaining = Number(res.headers['x-ratelimit-remaining']);
    const regenerated = await request(gw.app).post('/v1/apikey/regenerate').set(session.headers).expect(200);
    const keyed = await request(gw.app).get('/v1/me').set({ Authorization: `Bearer ${regenerated.body.api_key}` }).expect(200);
    // One cap for the account: the key's request is counted after the session's two.
    expect(Number(keyed.headers['x-ratelimit-remaining'])).toBe(remaining - 2);
    expect(keyed.body).toEqual(res.body);
    await request(gw.app).get('/v1/me').set({ Authorization: 'Bearer hw_live_wrong', Cookie: session.cookie }).expect(401);
  });

  it('lets an account whose subscription lapsed reach the billing portal, and nothing else', async () => {
    const session = await activeSession();
    await gw.env.database.db.pool.query(`UPDATE users SET subscription_status = 'canceled' WHERE id = $1`, [session.accountId]);
    await request(gw.app).get('/v1/me').set(session.headers).expect(402);
    await request(gw.app).delete('/v1/tracks/trk_x').set(session.headers).expect(402);
    // Manual billing: the operator renews, so there is no portal link.
    await request(gw.app).post('/v1/billing/portal').set(session.headers).expect(200, { url: null });
  });

  it('signs out with 204: the session ends at once and the cookie is cleared', async () => {
    const session = await activeSession();
    const res = await request(gw.app).delete('/v1/session').set('Cookie', session.cookie).expect(204);
    expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(/^hw_session=; Path=\/; Expires=Thu, 01 Jan 1970/);
    await request(gw.app).get('/v1/tracks').set(session.headers).expect(401);
    await request(gw.app).get('/v1/session').set('Cookie', session.cookie).expect(401);
    await request(gw.app).delete('/v1/session').expect(204);
  });

  it('changes the password with the current one: every session ends, this one too, and its cookie is cleared', async () => {
    const session = await activeSession();
    const other = await gw.signIn(session.email, PASSWORD);
    const wrong = await request(gw.app).post('/v1/me/password').set(session.headers).send({ current_password: 'nope', new_password: 'a brand new password' }).expect(401);
    expect(wrong.body.error.code).toBe('invalid_credentials');
    await request(gw.app).post('/v1/me/password').set(session.headers).send({ current_password: PASSWORD, new_password: 'short' }).expect(400);
    const changed = await request(gw.app).post('/v1/me/password').set(session.headers).send({ current_password: PASSWORD, new_password: 'a brand new password' }).expect(200, { password_changed: true });
    expect((changed.headers['set-cookie'] as unknown as string[])[0]).toMatch(/^hw_session=;/);
    await request(gw.app).get('/v1/me').set(session.headers).expect(401);
    await request(gw.app).get('/v1/me').set(other.headers).expect(401);
    await request(gw.app).post('/v1/session').send({ email: session.email, password: PASSWORD }).expect(401);
    await request(gw.app).post('/v1/session').send({ email: session.email, password: 'a brand new password' }).expect(200);
  });

  it('limits wrong current passwords to 10 per 15 minutes', async () => {
    const session = await activeSession();
    for (let n = 0; n < 10; n += 1) await request(gw.app).post('/v1/me/password').set(session.headers).send({ current_password: `x${n}`, new_password: 'a brand new password' }).expect(401);
    await request(gw.app).post('/v1/me/password').set(session.headers).send({ current_password: PASSWORD, new_password: 'a brand new password' }).expect(429);
  });

  it('deletes the account through the session: its sessions go with it and the cookie is cleared', async () => {
    const session = await activeSession();
    const res = await request(gw.app).delete('/v1/me').set(session.headers).expect(200, { deleted: true });
    expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(/^hw_session=;/);
    expect(await gw.env.database.db.prisma.session.count({ where: { userId: session.accountId } })).toBe(0);
    await request(gw.app).get('/v1/session').set('Cookie', session.cookie).expect(401);
  });
});

describe('sign-in with two-factor authentication', () => {
  const gw = useGateway();
  afterEach(async () => {
    gw.setNow(null);
    await gw.resetLimits();
  });

  async function twoFactorAccount(email: string) {
    await gw.checkout({ email, password: PASSWORD }, true);
    const session = await gw.signIn(email, PASSWORD);
    const { secret, t0 } = await gw.enableTwoFactor(session.headers);
    await request(gw.app).delete('/v1/session').set('Cookie', session.cookie).expect(204);
    return { secret, t0, accountId: session.accountId };
  }

  it('answers a login_token and no cookie, then signs in with the code; the token works once', async () => {
    const { secret, t0 } = await twoFactorAccount('tf@example.com');
    const at = later(t0, 30_000);
    gw.setNow(at);
    const first = await request(gw.app).post('/v1/session').send({ email: 'tf@example.com', password: PASSWORD }).expect(200);
    expect(first.body).toEqual({ two_factor_required: true, login_token: expect.stringMatching(/^hwl_/) });
    expect(first.headers['set-cookie']).toBeUndefined();
    const signedIn = await request(gw.app).post('/v1/2fa/login').send({ login_token: first.body.login_token, code: codeAt(secret, at) }).expect(200);
    expect(signedIn.body).toEqual({ two_factor_required: false });
    await request(gw.app).get('/v1/me').set('Cookie', sessionCookieOf(signedIn)).expect(200);
    gw.setNow(later(at, 30_000));
    const again = await request(gw.app).post('/v1/2fa/login').send({ login_token: first.body.login_token, code: codeAt(secret, later(at, 30_000)) }).expect(401);
    expect(again.body.error.code).toBe('unauthorized');
  });

  it('answers 403 invalid_two_factor_code to a wrong or replayed code, and keeps the token for a right one', async () => {
    const { secret, t0 } = await twoFactorAccount('tf-wrong@example.com');
    const at = later(t0, 30_000);
    gw.setNow(at);
    const { body } = await request(gw.app).post('/v1/session').send({ email: 'tf-wrong@example.com', password: PASSWORD }).expect(200);
    const right = codeAt(secret, at);
    const wrong = right === '000000' ? '111111' : '000000';
    const res = await request(gw.app).post('/v1/2fa/login').send({ login_token: body.login_token, code: wrong }).expect(403);
    expect(res.body.error.code).toBe('invalid_two_factor_code');
    // The code that turned 2FA on was already used.
    const replayed = await request(gw.app).post('/v1/2fa/login').send({ login_token: body.login_token, code: codeAt(secret, t0) }).expect(403);
    expect(replayed.body.error.message).toMatch(/already used/);
    await request(gw.app).post('/v1/2fa/login').send({ login_token: body.login_token, code: right }).expect(200);
    await request(gw.app).post('/v1/2fa/login').send({ login_token: body.login_token, code: 'abc' }).expect(400);
  });

  it('expires a login_token after 5 minutes', async () => {
    const { secret, t0 } = await twoFactorAccount('tf-late@example.com');
    gw.setNow(later(t0, 30_000));
    const { body } = await request(gw.app).post('/v1/session').send({ email: 'tf-late@example.com', password: PASSWORD }).expect(200);
    const late = later(t0, 30_000 + 5 * 60_000);
    gw.setNow(late);
    await request(gw.app).post('/v1/2fa/login').send({ login_token: body.login_token, code: codeAt(secret, late) }).expect(401);
  });

  it('allows 8 attempts per 5 minutes per account, then 429 even for the right code', async () => {
    const { secret, t0 } = await twoFactorAccount('tf-limit@example.com');
    const at = later(t0, 30_000);
    gw.setNow(at);
    const right = codeAt(secret, at);
    const wrong = right === '000000' ? '111111' : '000000';
    for (let n = 0; n < 8; n += 1) {
      const { body } = await request(gw.app).post('/v1/session').send({ email: 'tf-limit@example.com', password: PASSWORD }).expect(200);
      await request(gw.app).post('/v1/2fa/login').send({ login_token: body.login_token, code: wrong }).expect(403);
    }
    const { body } = await request(gw.app).post('/v1/session').send({ email: 'tf-limit@example.com', password: PASSWORD }).expect(200);
    const limited = await request(gw.app).post('/v1/2fa/login').send({ login_token: body.login_token, code: right }).expect(429);
    expect(limited.body.error.message).toMatch(/8 per 5 minutes/);
  });

  it('allows 8 attempts per 5 minutes per address, whatever the token, then 429', async () => {
    const app = gw.app;
    app.set('trust proxy', 1);
    try {
      for (let n = 0; n < 8; n += 1) {
        await request(app).post('/v1/2fa/login').set('X-Forwarded-For', '192.0.2.44').send({ login_token: `hwl_guess${n}`, code: '123456' }).expect(401);
      }
      const limited = await request(app).post('/v1/2fa/login').set('X-Forwarded-For', '192.0.2.44').send({ login_token: 'hwl_guess8', code: '123456' }).expect(429);
      expect(limited.body.error.code).toBe('rate_limited');
      await request(app).post('/v1/2fa/login').set('X-Forwarded-For', '192.0.2.45').send({ login_token: 'hwl_other', code: '123456' }).expect(401);
    } finally {
      app.set('trust proxy', false);
    }
  });
});

describe('cross-site requests to the public routes', () => {
  const gw = useGateway();

  it('refuses a sign-in, checkout or reset posted by another site’s page (login CSRF), and lets our own pages and backends through', async () => {
    await gw.checkout({ email: 'csrf@example.com', password: PASSWORD }, true);
    const body = { email: 'csrf@example.com', password: PASSWORD };
    const forged = await request(gw.app).post('/v1/session').set('Origin', 'https://evil.example').set('Content-Type', 'text/plain').send(JSON.stringify(body)).expect(403);
    expect(forged.body.error.code).toBe('csrf_failed');
    expect(forged.headers['set-cookie']).toBeUndefined();
    await request(gw.app).post('/v1/session').set('Sec-Fetch-Site', 'cross-site').send(body).expect(403);
    await request(gw.app).post('/v1/api/checkout').set('Origin', 'https://evil.example').send({ email: 'x@example.com', plan: 'starter', password: PASSWORD }).expect(403);
    await request(gw.app).post('/v1/session/password-reset').set('Origin', 'https://evil.example').send({ email: 'csrf@example.com' }).expect(403);
    await request(gw.app).post('/v1/session').set('Origin', 'http://localhost:3000').set('Sec-Fetch-Site', 'same-origin').send(body).expect(200);
    await request(gw.app).post('/v1/session').send(body).expect(200);
  });
});

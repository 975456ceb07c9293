import { codeAt, request, useGateway } from '../../test-support/gateway-harness';

type Auth = { Authorization: string };

/** A step-aligned instant (5 s into a 30 s step), so `+ n * STEP` lands n steps later. */
function stepStart(): Date {
  return new Date(Math.floor(Date.now() / 30_000) * 30_000 + 5_000);
}
const STEP = 30_000;
const later = (date: Date, ms: number) => new Date(date.getTime() + ms);

/** A 6-digit code that is none of the codes valid around `date`. */
function wrongCode(secret: string, date: Date): string {
  const valid = new Set([-STEP, 0, STEP].map((offset) => codeAt(secret, later(date, offset))));
  for (let n = 0; ; n += 1) {
    const candidate = String(n).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
}

/** The confirmation's answer: on, with 10 recovery codes shown once. */
const enabledWithCodes = (res: { body: unknown }): void => {
  expect(res.body).toEqual({ enabled: true, recovery_codes: expect.arrayContaining([expect.stringMatching(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/)]) });
  expect(new Set((res.body as { recovery_codes: string[] }).recovery_codes).size).toBe(10);
};

describe('two-factor authentication', () => {
  const gw = useGateway();
  afterEach(() => gw.setNow(null));

  async function userRow(accountId: string) {
    return gw.env.database.db.prisma.user.findUniqueOrThrow({ where: { id: accountId } });
  }

  /** Enables 2FA at `at` and answers the secret. */
  async function enable(auth: Auth, at: Date): Promise<string> {
    gw.setNow(at);
    const setup = await request(gw.app).post('/v1/2fa/enable').set(auth).send({}).expect(200);
    await request(gw.app).post('/v1/2fa/enable').set(auth).send({ code: codeAt(setup.body.secret, at) }).expect(200).expect(enabledWithCodes);
    return setup.body.secret as string;
  }

  it('answers a base32 secret, its otpauth URL and a PNG QR code, and stores the secret only sealed', async () => {
    const { accountId, auth } = await gw.account();
    const res = await request(gw.app).post('/v1/2fa/enable').set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      secret: expect.stringMatching(/^[A-Z2-7]{32,}$/),
      otpauth_url: expect.stringMatching(/^otpauth:\/\/totp\//),
      qr_code: expect.stringMatching(/^data:image\/png;base64,/),
      enabled: false,
    });
    const { email } = await userRow(accountId);
    const url = new URL(res.body.otpauth_url);
    expect(decodeURIComponent(url.pathname.slice(1))).toBe(email);
    expect(url.searchParams.get('issuer')).toBe('Hashwatch');
    expect(url.searchParams.get('secret')).toBe(res.body.secret);
    const png = Buffer.from(res.body.qr_code.slice('data:image/png;base64,'.length), 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

    const user = await userRow(accountId);
    expect(user.totpSecretEnc).toBeNull();
    expect(user.totpPendingSecretEnc).toMatch(/^v1\./);
    expect(user.totpPendingSecretEnc).not.toContain(res.body.secret);
    expect(gw.deps.cipher.decrypt(user.totpPendingSecretEnc as string)).toBe(res.body.secret);
    const me = await request(gw.app).get('/v1/me').set(auth).expect(200);
    expect(me.body.two_factor_enabled).toBe(false);
  });

  it('replaces the pending secret when enable is called again without a code', async () => {
    const { auth } = await gw.account();
    const now = stepStart();
    gw.setNow(now);
    const first = await request(gw.app).post('/v1/2fa/enable').set(auth).send({}).expect(200);
    const second = await request(gw.app).post('/v1/2fa/enable').set(auth).send({}).expect(200);
    expect(second.body.secret).not.toBe(first.body.secret);
    const stale = await request(gw.app).post('/v1/2fa/enable').set(auth).send({ code: codeAt(first.body.secret, now) });
    expect(stale.status).toBe(403);
    expect(stale.body.error.code).toBe('invalid_two_factor_code');
    await request(gw.app).post('/v1/2fa/enable').set(auth).send({ code: codeAt(second.body.secret, now) }).expect(200).expect(enabledWithCodes);
  });

  it('runs the whole flow: enable, confirm, codes on regenerate (missing, wrong, right once, replay), disable', async () => {
    const { accountId, apiKey, auth } = await gw.account();
    const t0 = stepStart();
    const secret = await enable(auth, t0);

    const user = await userRow(accountId);
    expect(user.totpPendingSecretEnc).toBeNull();
    expect(user.totpSecretEnc).toMatch(/^v1\./);
    expect(user.totpSecretEnc).not.toContain(secret);
    expect((await request(gw.app).get('/v1/me').set(auth).expect(200)).body.two_factor_enabled).toBe(true);

    const t1 = later(t0, STEP);
    gw.setNow(t1);
    const missing = await request(gw.app).post('/v1/apikey/regenerate').set(auth);
    expect(missing.status).toBe(403);
    expect(missing.body.error).toEqual({ code: 'two_factor_required', message: expect.stringContaining('X-TOTP-Code') });
    expect(missing.headers['x-ratelimit-limit']).toBeDefined();

    const wrong = await request(gw.app).post('/v1/apikey/regenerate').set(auth).set('X-TOTP-Code', wrongCode(secret, t1));
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('invalid_two_factor_code');

    // The confirming code (step t0) is still inside the drift window at t1, but it was used.
    const confirmReplay = await request(gw.app).post('/v1/apikey/regenerate').set(auth).set('X-TOTP-Code', codeAt(secret, t0));
    expect(confirmReplay.status).toBe(403);
    expect(confirmReplay.body.error).toEqual({ code: 'invalid_two_factor_code', message: expect.stringContaining('already used') });
    await request(gw.app).get('/v1/me').set({ Authorization: `Bearer ${apiKey}` }).expect(200);

    const code = codeAt(secret, t1);
    const regenerated = await request(gw.app).post('/v1/apikey/regenerate').set(auth).set('X-TOTP-Code', code).expect(200);
    const fresh = { Authorization: `Bearer ${regenerated.body.api_key}` };
    await request(gw.app).get('/v1/me').set(auth).expect(401);

    const replay = await request(gw.app).delete('/v1/me').set(fresh).set('X-TOTP-Code', code);
    expect(replay.status).toBe(403);
    expect(replay.body.error.code).toBe('invalid_two_factor_code');
    await request(gw.app).get('/v1/me').set(fresh).expect(200);

    const t2 = later(t1, STEP);
    gw.setNow(t2);
    await request(gw.app).post('/v1/2fa/disable').set(fresh).send({ code: codeAt(secret, t2) }).expect(200, { enabled: false });

    const after = await userRow(accountId);
    expect(after).toMatchObject({ totpSecretEnc: null, totpPendingSecretEnc: null, totpLastStep: null });
    expect((await request(gw.app).get('/v1/me').set(fresh).expect(200)).body.two_factor_enabled).toBe(false);
    await request(gw.app).delete('/v1/me').set(fresh).expect(200, { deleted: true });
  });

  it('accepts codes one step either side of now and refuses codes two steps away', async () => {
    const { auth } = await gw.account();
    const t0 = stepStart();
    gw.setNow(t0);
    const setup = await request(gw.app).post('/v1/2fa/enable').set(auth).send({}).expect(200);
    const secret = setup.body.secret as string;
    for (const offset of [-2 * STEP, 2 * STEP]) {
      const res = await request(gw.app).post('/v1/2fa/enable').set(auth).send({ code: codeAt(secret, later(t0, offset)) });
      expect(res.status).toBe(403);
    }
    await request(gw.app).post('/v1/2fa/enable').set(auth).send({ code: codeAt(secret, later(t0, -STEP)) }).expect(200).expect(enabledWithCodes);
    // The next step's code is newer than the one used, so it still works (on disable).
    await request(gw.app).post('/v1/2fa/disable').set(auth).send({ code: codeAt(secret, later(t0, STEP)) }).expect(200, { enabled: false });
  });

  it('answers 403 invalid_two_factor_code to a wrong confirmation code and keeps 2FA off', async () => {
    const { accountId, auth } = await gw.account();
    const now = stepStart();
    gw.setNow(now);
    const setup = await request(gw.app).post('/v1/2fa/enable').set(auth).send({}).expect(200);
    const res = await request(gw.app).post('/v1/2fa/enable').set(auth).send({ code: wrongCode(setup.body.secret, now) });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('invalid_two_factor_code');
    expect((await userRow(accountId)).totpSecretEnc).toBeNull();
  });

  it('answers 400 invalid_request to a confirmation code when no setup is pending', async () => {
    const { auth } = await gw.account();
    const res = await request(gw.app).post('/v1/2fa/enable').set(auth).send({ code: '123456' });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.stringContaining('code') });
  });

  it('answers 409 already_exists to enable, with or without a code, while 2FA is on', async () => {
    const { auth } = await gw.account();
    const t0 = stepStart();
    const secret = await enable(auth, t0);
    const again = await request(gw.app).post('/v1/2fa/enable').set(auth).send({});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_exists');
    gw.setNow(later(t0, STEP));
    const withCode = await request(gw.app).post('/v1/2fa/enable').set(auth).send({ code: codeAt(secret, later(t0, STEP)) });
    expect(withCode.status).toBe(409);
  });

  it('answers 403 invalid_two_factor_code to disable with a wrong code and keeps 2FA on', async () => {
    const { accountId, auth } = await gw.account();
    const t0 = stepStart();
    const secret = await enable(auth, t0);
    gw.setNow(later(t0, STEP));
    const res = await request(gw.app).post('/v1/2fa/disable').set(auth).send({ code: wrongCode(secret, later(t0, STEP)) });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('invalid_two_factor_code');
    expect((await userRow(accountId)).totpSecretEnc).not.toBeNull();
  });

  it('answers 400 invalid_request to disable while 2FA is off', async () => {
    const { auth } = await gw.account();
    const res = await request(gw.app).post('/v1/2fa/disable').set(auth).send({ code: '123456' });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', message: 'code: two-factor authentication is not enabled' });
  });

  it.each([
    ['/v1/2fa/enable', { code: '12345' }, 'code'],
    ['/v1/2fa/enable', { code: '1234567' }, 'code'],
    ['/v1/2fa/enable', { code: 'abcdef' }, 'code'],
    ['/v1/2fa/enable', { code: 123456 }, 'code'],
    ['/v1/2fa/enable', { secret: 'x' }, 'secret'],
    ['/v1/2fa/disable', {}, 'code'],
    ['/v1/2fa/disable', { code: '12 456' }, 'code'],
    ['/v1/2fa/disable', { code: '123456', extra: true }, 'extra'],
  ])('answers 400 invalid_request naming the field to POST %s with %j', async (path, body, field) => {
    const { auth } = await gw.account();
    const res = await request(gw.app).post(path).set(auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toContain(field);
  });

  it('answers 429 rate_limited to the 7th 2FA request in 5 minutes, with the wait and Retry-After', async () => {
    const { auth } = await gw.account();
    for (let i = 0; i < 3; i += 1) await request(gw.app).post('/v1/2fa/enable').set(auth).send({}).expect(200);
    // Refused requests count too.
    for (let i = 0; i < 3; i += 1) await request(gw.app).post('/v1/2fa/disable').set(auth).send({ code: '000000' }).expect(400);
    const res = await request(gw.app).post('/v1/2fa/enable').set(auth).send({});
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    expect(res.body.error.message).toMatch(/6 per 5 minutes; retry in [45]m/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(240);
    expect(res.headers['x-ratelimit-limit']).toBe('6');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    const other = await gw.account();
    await request(gw.app).post('/v1/2fa/enable').set(other.auth).send({}).expect(200);
  });

  it('counts wrong X-TOTP-Code codes on sensitive actions against the same limit, but not missing ones', async () => {
    const { auth } = await gw.account();
    const t0 = stepStart();
    const secret = await enable(auth, t0); // 2 requests
    gw.setNow(later(t0, STEP));
    for (let i = 0; i < 3; i += 1) await request(gw.app).delete('/v1/me').set(auth).expect(403); // missing: not counted
    for (let i = 0; i < 2; i += 1) {
      await request(gw.app).post('/v1/apikey/regenerate').set(auth).set('X-TOTP-Code', wrongCode(secret, later(t0, STEP))).expect(403);
    }
    await request(gw.app).delete('/v1/me').set(auth).set('X-TOTP-Code', wrongCode(secret, later(t0, STEP))).expect(403);
    await request(gw.app).delete('/v1/me').set(auth).set('X-TOTP-Code', wrongCode(secret, later(t0, STEP))).expect(403); // the 6th
    const guessing = await request(gw.app).delete('/v1/me').set(auth).set('X-TOTP-Code', codeAt(secret, later(t0, STEP)));
    expect(guessing.status).toBe(429);
    expect(guessing.body.error.message).toMatch(/retry in/);
    expect(guessing.headers['retry-after']).toBeDefined();
    expect(guessing.headers['x-ratelimit-limit']).toBe('6');
    const viaEnable = await request(gw.app).post('/v1/2fa/disable').set(auth).send({ code: codeAt(secret, later(t0, STEP)) });
    expect(viaEnable.status).toBe(429);
    await request(gw.app).get('/v1/me').set(auth).expect(200);
  });

  it('documents both endpoints with their bodies and error codes in the OpenAPI document', async () => {
    const res = await request(gw.app).get('/v1/openapi.json').expect(200);
    const enableOp = res.body.paths['/v1/2fa/enable'].post;
    expect(Object.keys(enableOp.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '402', '403', '409', '429']));
    expect(enableOp.description).toContain('6 requests per 5 minutes');
    expect(Object.keys(res.body.paths['/v1/2fa/disable'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '403', '429']));
  });
});

import { codeAt, request, useGateway } from '../../test-support/gateway-harness';

const bearer = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });

describe('POST /apikey/regenerate', () => {
  const gw = useGateway();
  afterEach(() => gw.setNow(null));

  it('answers a new key; the old key answers 401 at once and the new one works', async () => {
    const { accountId, apiKey, auth } = await gw.account();
    const res = await request(gw.app).post('/v1/apikey/regenerate').set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ api_key: expect.any(String) });
    expect(res.body.api_key).not.toBe(apiKey);

    const old = await request(gw.app).get('/v1/me').set(auth);
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('unauthorized');
    const fresh = await request(gw.app).get('/v1/me').set(bearer(res.body.api_key)).expect(200);
    expect(fresh.body.id).toBe(accountId);
    const keys = await gw.env.database.db.prisma.apiKey.findMany({ where: { userId: accountId } });
    expect(keys.filter((key) => key.revokedAt === null)).toHaveLength(1);
  });

  it('answers 429 rate_limited with the wait and Retry-After to a second regeneration within 15 minutes', async () => {
    const { auth } = await gw.account();
    const first = await request(gw.app).post('/v1/apikey/regenerate').set(auth).expect(200);
    const fresh = bearer(first.body.api_key);
    const second = await request(gw.app).post('/v1/apikey/regenerate').set(fresh);
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe('rate_limited');
    expect(second.body.error.message).toMatch(/1 per 15 minutes; retry in 1[45]m/);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(second.headers['x-ratelimit-limit']).toBe('1');
    expect(second.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(second.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 + 14 * 60);
    // The refused request changed nothing.
    await request(gw.app).get('/v1/me').set(fresh).expect(200);
  });

  it('does not count a regeneration refused for a missing or wrong TOTP code against the 15-minute limit', async () => {
    const { auth } = await gw.account();
    const { secret, t0 } = await gw.enableTwoFactor(auth);

    const t1 = new Date(t0.getTime() + 30_000);
    gw.setNow(t1);
    const missing = await request(gw.app).post('/v1/apikey/regenerate').set(auth);
    expect(missing.status).toBe(403);
    expect(missing.body.error.code).toBe('two_factor_required');
    const right = codeAt(secret, t1);
    const wrong = await request(gw.app).post('/v1/apikey/regenerate').set(auth).set('X-TOTP-Code', right === '000000' ? '000001' : '000000');
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('invalid_two_factor_code');
    await request(gw.app).get('/v1/me').set(auth).expect(200);

    const res = await request(gw.app).post('/v1/apikey/regenerate').set(auth).set('X-TOTP-Code', right).expect(200);
    await request(gw.app).get('/v1/me').set(auth).expect(401);
    await request(gw.app).get('/v1/me').set(bearer(res.body.api_key)).expect(200);
  });

  it('answers 429 before spending a TOTP code when the 15 minutes have not passed', async () => {
    const { auth } = await gw.account();
    const first = await request(gw.app).post('/v1/apikey/regenerate').set(auth).expect(200);
    const fresh = bearer(first.body.api_key);
    const t0 = new Date(Math.floor(Date.now() / 30_000) * 30_000 + 5_000);
    gw.setNow(t0);
    const setup = await request(gw.app).post('/v1/2fa/enable').set(fresh).send({}).expect(200);
    await request(gw.app).post('/v1/2fa/enable').set(fresh).send({ code: codeAt(setup.body.secret, t0) }).expect(200);
    const t1 = new Date(t0.getTime() + 30_000);
    gw.setNow(t1);
    const code = codeAt(setup.body.secret, t1);
    await request(gw.app).post('/v1/apikey/regenerate').set(fresh).set('X-TOTP-Code', code).expect(429);
    // The code was not used up, so it still works for another sensitive action.
    await request(gw.app).delete('/v1/me').set(fresh).set('X-TOTP-Code', code).expect(200, { deleted: true });
  });

  it('answers 400 invalid_request to a body', async () => {
    const { auth } = await gw.account();
    const res = await request(gw.app).post('/v1/apikey/regenerate').set(auth).send({ api_key: 'mine' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    await request(gw.app).get('/v1/me').set(auth).expect(200);
  });

  it('documents X-TOTP-Code, the 2FA errors and the limit decision in the OpenAPI document', async () => {
    const res = await request(gw.app).get('/v1/openapi.json').expect(200);
    const op = res.body.paths['/v1/apikey/regenerate'].post;
    expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'X-TOTP-Code' })]));
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '402', '403', '429']));
    expect(op.responses['429'].headers['Retry-After']).toBeDefined();
    expect(op.description).toContain('Only successful regenerations count');
  });
});

import { hashPassword } from '@hashwatch/secrets';
import { waitFor } from '@hashwatch/testing';
import { request, useGateway } from '../../test-support/gateway-harness';
import { startMailReceiver, type MailReceiver } from '@hashwatch/testing';
import { mailingSelfService } from '../../test-support/mail-receiver';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';
const PUBLIC_URL = 'https://watch.example.com';

describe('password reset by mail', () => {
  let receiver: MailReceiver;
  beforeAll(async () => {
    receiver = await startMailReceiver();
  });
  const gw = useGateway({ selfService: () => mailingSelfService(receiver, PUBLIC_URL, true) });
  afterAll(() => receiver.close());
  afterEach(async () => {
    gw.setNow(null);
    await gw.resetLimits();
  });

  /** The reset link mailed to `email`, once it arrived. */
  async function linkFor(email: string, count = 1): Promise<string> {
    // Checkouts mail the address too: only the reset mails count here.
    const resets = () => receiver.mails.filter((mail) => mail.to.includes(email) && mail.subject === 'Reset your Hashwatch password');
    await waitFor(async () => resets().length >= count, 10_000, `reset mail ${count} to ${email}`);
    const mail = resets()[count - 1];
    const link = /https:\/\/\S+/.exec(mail?.text ?? '')?.[0];
    if (!link) throw new Error(`no link in ${mail?.text}`);
    return link;
  }

  it('mails a one-time link on PUBLIC_URL; the new password works, the old one and every session end', async () => {
    await gw.checkout({ email: 'reset@example.com', password: PASSWORD });
    const session = await gw.signIn('reset@example.com', PASSWORD);
    const res = await request(gw.app).post('/v1/session/password-reset').send({ email: 'Reset@Example.com' }).expect(202);
    expect(res.body).toEqual({ accepted: true });
    const link = await linkFor('reset@example.com');
    expect(link).toMatch(/^https:\/\/watch\.example\.com\/reset-password\?token=hwr_[A-Za-z0-9_-]{43}$/);
    expect(receiver.mails.at(-1)?.subject).toBe('Reset your Hashwatch password');
    const token = new URL(link).searchParams.get('token') as string;
    const stored = await gw.env.database.db.pool.query<{ token_hash: Buffer }>('SELECT token_hash FROM password_resets');
    expect(stored.rows.map((row) => row.token_hash.toString('utf8')).join()).not.toContain(token);

    await request(gw.app).post('/v1/session/password-reset/confirm').send({ token, password: NEW_PASSWORD }).expect(200, { password_changed: true });
    await request(gw.app).get('/v1/session').set('Cookie', session.cookie).expect(401);
    await request(gw.app).post('/v1/session').send({ email: 'reset@example.com', password: PASSWORD }).expect(401);
    await request(gw.app).post('/v1/session').send({ email: 'reset@example.com', password: NEW_PASSWORD }).expect(200);
    const again = await request(gw.app).post('/v1/session/password-reset/confirm').send({ token, password: 'yet another passphrase' }).expect(400);
    expect(again.body.error).toEqual({ code: 'invalid_request', message: 'token: unknown, expired or already used; ask for a new link' });
  });

  it('ends a squatter\'s session and reset link when the email\'s owner checks out, and mails the address', async () => {
    // Someone else checks out first with this email, signs in and keeps a reset link; the account waits for payment
    // (this file's gateway activates checkouts at once, so it is put back to pending as a paying provider leaves it).
    await gw.checkout({ email: 'squatted@example.com', password: PASSWORD });
    await gw.env.database.db.pool.query(`UPDATE users SET subscription_status = 'pending' WHERE email = 'squatted@example.com'`);
    const squatter = await gw.signIn('squatted@example.com', PASSWORD);
    await request(gw.app).post('/v1/session/password-reset').send({ email: 'squatted@example.com' }).expect(202);
    const squatterToken = new URL(await linkFor('squatted@example.com')).searchParams.get('token') as string;
    const { rows: [user] } = await gw.env.database.db.pool.query<{ id: string }>(`SELECT id FROM users WHERE email = 'squatted@example.com'`);
    await gw.env.database.db.pool.query(`INSERT INTO login_challenges (token_hash, user_id, created_at, expires_at) VALUES ('\\x01', $1, now(), now() + interval '5 minutes')`, [user?.id]);

    // The owner checks out with a password of their own.
    await gw.checkout({ email: 'squatted@example.com', password: NEW_PASSWORD });
    await request(gw.app).get('/v1/session').set('Cookie', squatter.cookie).expect(401);
    await request(gw.app).post('/v1/session/password-reset/confirm').send({ token: squatterToken, password: 'the squatter keeps it' }).expect(400);
    const left = await gw.env.database.db.pool.query('SELECT 1 FROM login_challenges WHERE user_id = $1 UNION ALL SELECT 1 FROM sessions WHERE user_id = $1', [user?.id]);
    expect(left.rowCount).toBe(0);
    await request(gw.app).post('/v1/session').send({ email: 'squatted@example.com', password: NEW_PASSWORD }).expect(200);
    await waitFor(async () => receiver.mails.filter((mail) => mail.to.includes('squatted@example.com') && mail.subject.includes('checkout was started')).length >= 2, 10_000, 'two checkout mails');
  });

  it('looks a reset link up before hashing the new password, so a bogus link costs no scrypt', async () => {
    // Fill the hashing line (2 at once, 32 waiting): a confirm that hashed first would wait in it or be refused 503.
    const flood = Array.from({ length: 40 }, () => hashPassword('fill the hashing line').catch(() => undefined));
    const res = await request(gw.app).post('/v1/session/password-reset/confirm').send({ token: `hwr_${'A'.repeat(43)}`, password: NEW_PASSWORD });
    expect([res.status, res.body.error?.code]).toEqual([400, 'invalid_request']);
    await Promise.all(flood);
  });

  it('answers an unknown email exactly as a known one, and mails nothing', async () => {
    const before = receiver.mails.length;
    const res = await request(gw.app).post('/v1/session/password-reset').send({ email: 'nobody@example.com' }).expect(202);
    expect(res.body).toEqual({ accepted: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.mails.length).toBe(before);
  });

  it('lets an account an operator created set its first password', async () => {
    const { auth } = await gw.account();
    const email = (await request(gw.app).get('/v1/me').set(auth).expect(200)).body.email as string;
    await request(gw.app).post('/v1/session/password-reset').send({ email }).expect(202);
    const token = new URL(await linkFor(email)).searchParams.get('token') as string;
    await request(gw.app).post('/v1/session/password-reset/confirm').send({ token, password: NEW_PASSWORD }).expect(200);
    await request(gw.app).post('/v1/session').send({ email, password: NEW_PASSWORD }).expect(200);
  });

  it('refuses a link after 30 minutes, and a bad new password without spending the link', async () => {
    await gw.checkout({ email: 'late@example.com', password: PASSWORD });
    const t0 = new Date();
    gw.setNow(t0);
    await request(gw.app).post('/v1/session/password-reset').send({ email: 'late@example.com' }).expect(202);
    const token = new URL(await linkFor('late@example.com')).searchParams.get('token') as string;
    const short = await request(gw.app).post('/v1/session/password-reset/confirm').send({ token, password: 'short' }).expect(400);
    expect(short.body.error.message).toMatch(/^password: must be at least 12 characters/);
    gw.setNow(new Date(t0.getTime() + 30 * 60_000));
    await request(gw.app).post('/v1/session/password-reset/confirm').send({ token, password: NEW_PASSWORD }).expect(400);
    gw.setNow(new Date(t0.getTime() + 29 * 60_000));
    await request(gw.app).post('/v1/session/password-reset/confirm').send({ token, password: NEW_PASSWORD }).expect(200);
  });

  it('mails one email at most 3 times an hour', async () => {
    await gw.checkout({ email: 'flooded@example.com', password: PASSWORD });
    for (let n = 0; n < 4; n += 1) {
      // From one address here (4 of its 5 per 15 minutes): the per-email count is what stops the fourth mail.
      await request(gw.app).post('/v1/session/password-reset').send({ email: 'flooded@example.com' }).expect(202);
      if (n < 3) await linkFor('flooded@example.com', n + 1);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.mails.filter((mail) => mail.to.includes('flooded@example.com') && mail.subject.startsWith('Reset'))).toHaveLength(3);
  });

  it('answers 400 naming the field to bad bodies, and limits requests to 5 per 15 minutes per address', async () => {
    expect((await request(gw.app).post('/v1/session/password-reset').send({ email: 'not an email' }).expect(400)).body.error.message).toMatch(/^email: /);
    await request(gw.app).post('/v1/session/password-reset/confirm').send({ password: NEW_PASSWORD }).expect(400);
    await gw.resetLimits();
    for (let n = 0; n < 5; n += 1) await request(gw.app).post('/v1/session/password-reset').send({ email: `flood${n}@example.com` }).expect(202);
    const limited = await request(gw.app).post('/v1/session/password-reset').send({ email: 'flood5@example.com' }).expect(429);
    expect(limited.body.error.message).toMatch(/5 per 15 minutes per address/);
  });
});

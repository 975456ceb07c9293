import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { transaction } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import { hashPassword, hashToken, needsRehash, verifyPassword } from '@hashwatch/secrets';
import type { GatewayDeps } from '../../deps';
import { setRateLimitHeaders } from '../../middleware/rate-limit-headers';
import { describeWait, Limiter, type LimitDecision } from '../../middleware/rate-limiters';
import { issueOneTimeToken } from '../../sessions/one-time-tokens';
import { setSessionCookie, type SessionStore } from '../../sessions/session-store';
import { addressKey } from '../../middleware/client-address';
import { reportSecondFactor, useSecondFactor } from '../two-factor/two-factor.service';

// 10 failed sign-ins within 15 minutes, for one email or from one address, then 429 until the window passes.
const SIGN_IN_FAILURES = 10;
const SIGN_IN_WINDOW_SECONDS = 15 * 60;
// 30 sign-ins within 15 minutes, right or wrong, for one email or from one address: each costs a 32 MiB scrypt and
// a successful one a session row, so even the right password cannot be replayed without bound.
const SIGN_IN_ATTEMPTS = 30;
// POST /2fa/login: 8 per 5 minutes per account and per address.
const TWO_FACTOR_LOGINS = 8;
const TWO_FACTOR_LOGIN_WINDOW_SECONDS = 5 * 60;
/** A login_token lives 5 minutes. */
const LOGIN_TOKEN_MS = 5 * 60_000;

const WRONG_CREDENTIALS = 'the email or the password is wrong';

/** The key the failures of one email count under: a hash, so Redis holds no address. */
export function emailLimitKey(email: string): string {
  return createHash('sha256').update(email).digest('base64url');
}

interface SignInRow {
  id: string;
  password_hash: string | null;
  two_factor: boolean;
}

export type SignInResult = { two_factor_required: false } | { two_factor_required: true; login_token: string };

/** Sign-in and its 2FA step, with their limits; one instance per gateway. */
export class SignIn {
  private readonly failuresByEmail: Limiter;
  private readonly failuresByAddress: Limiter;
  private readonly attemptsByEmail: Limiter;
  private readonly attemptsByAddress: Limiter;
  private readonly twoFactorByAccount: Limiter;
  private readonly twoFactorByAddress: Limiter;

  constructor(
    private readonly deps: GatewayDeps,
    private readonly sessions: SessionStore,
  ) {
    const prefix = `${deps.keyPrefix}:rl`;
    this.failuresByEmail = new Limiter(deps.redis, `${prefix}:signin-email`, SIGN_IN_FAILURES, SIGN_IN_WINDOW_SECONDS);
    this.failuresByAddress = new Limiter(deps.redis, `${prefix}:signin-ip`, SIGN_IN_FAILURES, SIGN_IN_WINDOW_SECONDS);
    this.attemptsByEmail = new Limiter(deps.redis, `${prefix}:signin-all-email`, SIGN_IN_ATTEMPTS, SIGN_IN_WINDOW_SECONDS);
    this.attemptsByAddress = new Limiter(deps.redis, `${prefix}:signin-all-ip`, SIGN_IN_ATTEMPTS, SIGN_IN_WINDOW_SECONDS);
    this.twoFactorByAccount = new Limiter(deps.redis, `${prefix}:2fa-login`, TWO_FACTOR_LOGINS, TWO_FACTOR_LOGIN_WINDOW_SECONDS);
    this.twoFactorByAddress = new Limiter(deps.redis, `${prefix}:2fa-login-ip`, TWO_FACTOR_LOGINS, TWO_FACTOR_LOGIN_WINDOW_SECONDS);
  }

  /**
   * `POST /v1/session`. Every attempt is counted against both failure limits before the password is checked (so a
   * burst of parallel guesses is cut off at the limit, not after it), and given back when it succeeds. An unknown
   * email costs the same scrypt hash as a wrong password and gets the same answer. While either count is spent,
   * even the right password answers 429. Every attempt, successful ones included, also counts against 30 per 15
   * minutes per email and per address, never given back.
   */
  async signIn(req: Request, res: Response, input: { email: string; password: string }): Promise<SignInResult> {
    const email = input.email.trim().toLowerCase();
    const keys = { email: emailLimitKey(email), address: addressKey(req) };
    const [allByEmail, allByAddress] = await Promise.all([this.attemptsByEmail.consume(keys.email), this.attemptsByAddress.consume(keys.address)]);
    for (const decision of [allByEmail, allByAddress]) if (!decision.allowed) refuse(res, decision, `sign-in is limited to ${SIGN_IN_ATTEMPTS} per 15 minutes`);
    const [byEmail, byAddress] = await Promise.all([this.failuresByEmail.consume(keys.email), this.failuresByAddress.consume(keys.address)]);
    for (const decision of [byEmail, byAddress]) if (!decision.allowed) refuse(res, decision, 'sign-in is locked after 10 failures in 15 minutes');
    const { rows } = await this.deps.db.pool.query<SignInRow>('SELECT id, password_hash, totp_secret_enc IS NOT NULL AS two_factor FROM users WHERE email = $1', [email]);
    const row = rows[0];
    const matches = await verifyPassword(input.password, row?.password_hash ?? null);
    if (!row || !matches) throw new AppError('invalid_credentials', WRONG_CREDENTIALS);
    await Promise.all([this.failuresByEmail.refund(keys.email), this.failuresByAddress.refund(keys.address)]);
    if (row.password_hash && needsRehash(row.password_hash)) {
      await this.deps.db.pool.query('UPDATE users SET password_hash = $2 WHERE id = $1 AND password_hash = $3', [row.id, await hashPassword(input.password), row.password_hash]);
    }
    if (row.two_factor) return { two_factor_required: true, login_token: await issueOneTimeToken(this.deps.db.pool, 'login_challenges', row.id, this.deps.now(), LOGIN_TOKEN_MS) };
    const session = await this.sessions.create(this.deps.db.pool, row.id);
    setSessionCookie(req, res, session.token, session.expiresAt);
    return { two_factor_required: false };
  }


  /**
   * `POST /v1/2fa/login`: the code for the sign-in `login_token` started. A right code spends the token and the code
   * and sets the cookie; every attempt counts against the account's and the address's 8 per 5 minutes.
   */
  async completeTwoFactor(req: Request, res: Response, input: { login_token: string; code: string }): Promise<{ two_factor_required: false }> {
    const address = await this.twoFactorByAddress.consume(addressKey(req));
    if (!address.allowed) refuse(res, address, 'POST /2fa/login is limited to 8 per 5 minutes');
    const tokenHash = hashToken(input.login_token);
    const { rows } = await this.deps.db.pool.query<{ user_id: string }>('SELECT user_id FROM login_challenges WHERE token_hash = $1 AND expires_at > $2', [tokenHash, this.deps.now()]);
    const userId = rows[0]?.user_id;
    if (!userId) throw new AppError('unauthorized', 'login_token: unknown, expired or already used; sign in again');
    const account = await this.twoFactorByAccount.consume(userId);
    if (!account.allowed) refuse(res, account, 'POST /2fa/login is limited to 8 per 5 minutes');
    const { session, used } = await transaction(this.deps.db.pool, async (client) => {
      const { rows: locked } = await client.query<{ totp_secret_enc: string | null; totp_last_step: string | null }>(
        'SELECT totp_secret_enc, totp_last_step FROM users WHERE id = $1 FOR UPDATE',
        [userId],
      );
      const secretEnc = locked[0]?.totp_secret_enc;
      if (!secretEnc) throw new AppError('unauthorized', 'login_token: two-factor authentication is no longer on; sign in again');
      const lastStep = locked[0]?.totp_last_step == null ? null : Number(locked[0].totp_last_step);
      const factor = await useSecondFactor(client, this.deps, userId, { secretEnc, lastStep }, input.code);
      // Spent by this sign-in: a second use of the token finds nothing (and the code or recovery code stays unused).
      const { rowCount } = await client.query('DELETE FROM login_challenges WHERE token_hash = $1', [tokenHash]);
      if (!rowCount) throw new AppError('unauthorized', 'login_token: unknown, expired or already used; sign in again');
      return { session: await this.sessions.create(client, userId), used: factor };
    });
    reportSecondFactor(this.deps, userId, used);
    setSessionCookie(req, res, session.token, session.expiresAt);
    return { two_factor_required: false };
  }
}

function refuse(res: Response, decision: LimitDecision, why: string): never {
  setRateLimitHeaders(res, decision);
  throw new AppError('rate_limited', `${why}; retry in ${describeWait(decision.retryAfterSeconds)}`, { retryAfterSeconds: decision.retryAfterSeconds });
}

import { timingSafeEqual } from 'node:crypto';
import type { Response } from 'express';
import type pg from 'pg';
import QRCode from 'qrcode';
import speakeasy from 'speakeasy';
import { transaction } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import { verifyPassword } from '@hashwatch/secrets';
import type { AuthContext } from '../../middleware/authenticate';
import type { GatewayDeps } from '../../deps';
import { setRateLimitHeaders } from '../../middleware/rate-limit-headers';
import { tightLimit, type TightLimit } from '../../middleware/tight-limit';
import { mailSecurityChange } from '../../sessions/security-mail';
import { issueRecoveryCodes, revokeRecoveryCodes, spendRecoveryCode } from './recovery-codes';
import { RECOVERY_CODE_PATTERN, TOTP_CODE_PATTERN, TOTP_HEADER, type TwoFactorEnabled, type TwoFactorSetup } from './two-factor.schema';

// RFC 6238 as authenticator apps implement it: 6 digits, 30-second steps, HMAC-SHA1 (speakeasy's defaults).
const STEP_SECONDS = 30;
// One step either side forgives up to 30 s of clock drift between the phone and the server.
const DRIFT_STEPS = 1;
const ISSUER = 'Hashwatch';
// 32 random alphanumerics, about 190 bits: above RFC 4226's 128-bit minimum.
const SECRET_LENGTH = 32;
// POST /2fa/enable and POST /2fa/disable: 6 per 5 minutes per account, on top of the per-minute cap.
const TWO_FACTOR_ATTEMPTS = 6;
const TWO_FACTOR_WINDOW_SECONDS = 300;

type CodeCheck = { outcome: 'accepted'; step: number } | { outcome: 'replayed' } | { outcome: 'wrong' };

/**
 * Checks a code against the steps around `now`. A step at or before `lastStep` was already used (or
 * precedes one that was), so its code is refused: a code works once, and never after a later one.
 */
export function checkTotpCode(secret: string, code: string, now: Date, lastStep: number | null): CodeCheck {
  const current = Math.floor(now.getTime() / 1000 / STEP_SECONDS);
  let replayed = false;
  for (let step = current - DRIFT_STEPS; step <= current + DRIFT_STEPS; step += 1) {
    const expected = speakeasy.totp({ secret, encoding: 'base32', counter: step });
    if (expected.length !== code.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(code))) continue;
    if (lastStep !== null && step <= lastStep) {
      replayed = true;
      continue;
    }
    return { outcome: 'accepted', step };
  }
  return { outcome: replayed ? 'replayed' : 'wrong' };
}

export function refuseCode(check: CodeCheck): never {
  throw new AppError(
    'invalid_two_factor_code',
    check.outcome === 'replayed' ? 'this two-factor code was already used; wait for the next one' : 'the two-factor code is wrong',
  );
}

/** How a second factor was given: a TOTP code (its step is now the last one used) or a recovery code (now spent). */
export type SecondFactor = { via: 'totp' } | { via: 'recovery'; remaining: number };

/**
 * Checks `code` against the account's confirmed 2FA, inside the transaction that holds the account's row lock: a
 * 6-digit code against the TOTP secret (recording its step, so it works once), anything else as a recovery code
 * (spending it). Wrong, replayed or already spent: 403 `invalid_two_factor_code`, and nothing is used up.
 */
export async function useSecondFactor(
  client: pg.PoolClient,
  deps: GatewayDeps,
  userId: string,
  account: { secretEnc: string; lastStep: number | null },
  code: string,
): Promise<SecondFactor> {
  if (TOTP_CODE_PATTERN.test(code)) {
    const check = checkTotpCode(deps.cipher.decrypt(account.secretEnc), code, deps.now(), account.lastStep);
    if (check.outcome !== 'accepted') refuseCode(check);
    await client.query('UPDATE users SET totp_last_step = $2 WHERE id = $1', [userId, check.step]);
    return { via: 'totp' };
  }
  if (!RECOVERY_CODE_PATTERN.test(code)) refuseCode({ outcome: 'wrong' });
  const { spent, remaining } = await spendRecoveryCode(client, userId, code);
  if (!spent) throw new AppError('invalid_two_factor_code', 'the recovery code is wrong or was already used');
  return { via: 'recovery', remaining };
}

/** After the commit: a spent recovery code is mailed to the owner (CONTRACT 4). */
export function reportSecondFactor(deps: GatewayDeps, userId: string, used: SecondFactor): void {
  if (used.via === 'recovery') mailSecurityChange(deps, userId, { kind: 'recovery_code_used', remaining: used.remaining });
}

const REAUTHENTICATION_REFUSED = 'this change, made with an API key, also needs the account\'s dashboard password in `password`';

/**
 * CONTRACT 4's re-authentication: with an API key (not a session), enabling or disabling 2FA on an account that has a
 * dashboard password also needs that password, so a leaked key cannot enrol its holder's authenticator. Missing or
 * wrong: 403 `invalid_credentials`. A session proved the password when it signed in; an account without a password
 * (made by `admin account:create`) has only its key.
 */
export async function requireReauthentication(deps: GatewayDeps, auth: AuthContext, password: string | undefined): Promise<void> {
  if (auth.sessionId) return;
  const { rows } = await deps.db.pool.query<{ password_hash: string | null }>('SELECT password_hash FROM users WHERE id = $1', [auth.userId]);
  const hash = rows[0]?.password_hash ?? null;
  if (hash === null) return;
  if (password === undefined || !(await verifyPassword(password, hash))) {
    throw new AppError('invalid_credentials', password === undefined ? REAUTHENTICATION_REFUSED : `${REAUTHENTICATION_REFUSED}: it is wrong`, { status: 403 });
  }
}

interface TwoFactorRow {
  email: string;
  totp_secret_enc: string | null;
  totp_pending_secret_enc: string | null;
  totp_last_step: string | null;
}

/** Locks the account row so the attempts of one account are checked one after another (replay, limit). */
async function lockTwoFactor(client: pg.PoolClient, userId: string): Promise<TwoFactorRow & { lastStep: number | null }> {
  const { rows } = await client.query<TwoFactorRow>(
    'SELECT email, totp_secret_enc, totp_pending_secret_enc, totp_last_step FROM users WHERE id = $1 FOR UPDATE',
    [userId],
  );
  const row = rows[0];
  if (!row) throw new AppError('unauthorized', 'the account no longer exists');
  return { ...row, lastStep: row.totp_last_step === null ? null : Number(row.totp_last_step) };
}

/**
 * Issues a new pending secret (replacing any earlier pending one); 2FA stays off until a code from it
 * is confirmed. Only the sealed secret is stored.
 */
export async function startTwoFactorSetup(deps: GatewayDeps, userId: string): Promise<TwoFactorSetup> {
  const secret = speakeasy.generateSecret({ length: SECRET_LENGTH }).base32;
  const email = await transaction(deps.db.pool, async (client) => {
    const row = await lockTwoFactor(client, userId);
    if (row.totp_secret_enc) throw new AppError('already_exists', 'two-factor authentication is already enabled');
    await client.query('UPDATE users SET totp_pending_secret_enc = $2, updated_at = $3 WHERE id = $1', [userId, deps.cipher.encrypt(secret), deps.now()]);
    return row.email;
  });
  const otpauthUrl = speakeasy.otpauthURL({
    secret,
    encoding: 'base32',
    label: encodeURIComponent(email),
    issuer: ISSUER,
    digits: 6,
    period: STEP_SECONDS,
  });
  return { secret, otpauth_url: otpauthUrl, qr_code: await QRCode.toDataURL(otpauthUrl), enabled: false };
}

/** Turns 2FA on when `code` comes from the pending secret, and answers the recovery codes, this once. */
export async function confirmTwoFactorSetup(deps: GatewayDeps, userId: string, code: string): Promise<TwoFactorEnabled> {
  const enabled = await transaction(deps.db.pool, async (client) => {
    const row = await lockTwoFactor(client, userId);
    if (row.totp_secret_enc) throw new AppError('already_exists', 'two-factor authentication is already enabled');
    if (!row.totp_pending_secret_enc) {
      throw new AppError('invalid_request', 'code: no setup is pending; call POST /2fa/enable without a code first');
    }
    const check = checkTotpCode(deps.cipher.decrypt(row.totp_pending_secret_enc), code, deps.now(), row.lastStep);
    if (check.outcome !== 'accepted') refuseCode(check);
    await client.query(
      `UPDATE users SET totp_secret_enc = totp_pending_secret_enc, totp_pending_secret_enc = NULL, totp_last_step = $2, updated_at = $3
        WHERE id = $1`,
      [userId, check.step, deps.now()],
    );
    return { enabled: true as const, recovery_codes: await issueRecoveryCodes(client, userId, deps.now()) };
  });
  mailSecurityChange(deps, userId, { kind: 'two_factor_enabled' });
  return enabled;
}

/**
 * Turns 2FA off with a current code or a recovery code; the other recovery codes end with it. Answers 400 when it is
 * not on: there is nothing to disable.
 */
export async function disableTwoFactor(deps: GatewayDeps, userId: string, code: string): Promise<{ enabled: false }> {
  const used = await transaction(deps.db.pool, async (client) => {
    const row = await lockTwoFactor(client, userId);
    if (!row.totp_secret_enc) throw new AppError('invalid_request', 'code: two-factor authentication is not enabled');
    const factor = await useSecondFactor(client, deps, userId, { secretEnc: row.totp_secret_enc, lastStep: row.lastStep }, code);
    await client.query(
      `UPDATE users SET totp_secret_enc = NULL, totp_pending_secret_enc = NULL, totp_last_step = NULL, updated_at = $2 WHERE id = $1`,
      [userId, deps.now()],
    );
    await revokeRecoveryCodes(client, userId);
    return factor;
  });
  reportSecondFactor(deps, userId, used);
  mailSecurityChange(deps, userId, { kind: 'two_factor_disabled' });
  return { enabled: false as const };
}

/** The 2FA limit and the check that guards sensitive actions, shared by every route that needs them. */
export interface TwoFactorGuard {
  /**
   * 6 per 5 minutes per account: every POST /2fa/enable and /2fa/disable, and every wrong X-TOTP-Code
   * on a sensitive action, so codes cannot be guessed faster through another endpoint.
   */
  readonly limit: TightLimit;
  /**
   * Passes when 2FA is off. Otherwise needs a right, unused code (or recovery code) in X-TOTP-Code: missing → 403
   * `two_factor_required`, neither 6 digits nor a recovery code's form → 400, wrong or replayed → 403
   * `invalid_two_factor_code` (counted against `limit`), `limit` spent → 429. An accepted code is used up.
   */
  requireCode(userId: string, header: string | undefined, res: Response): Promise<void>;
}

/** Creates the one guard the gateway shares between /2fa, DELETE /me and POST /apikey/regenerate. */
export function createTwoFactorGuard(deps: GatewayDeps): TwoFactorGuard {
  const limit = tightLimit(deps, 'two-factor', 'Two-factor verification', TWO_FACTOR_ATTEMPTS, TWO_FACTOR_WINDOW_SECONDS);
  return {
    limit,
    async requireCode(userId, header, res) {
      const used = await transaction(deps.db.pool, async (client): Promise<SecondFactor | null> => {
        // Under the row lock, so parallel guesses of one account are counted one after another.
        const row = await lockTwoFactor(client, userId);
        if (!row.totp_secret_enc) return null;
        const code = header?.trim();
        if (!code) {
          throw new AppError('two_factor_required', `two-factor authentication is on: send the current 6-digit code in the ${TOTP_HEADER} header`);
        }
        if (!TOTP_CODE_PATTERN.test(code) && !RECOVERY_CODE_PATTERN.test(code)) {
          throw new AppError('invalid_request', `${TOTP_HEADER}: must be the 6-digit code or a recovery code (abcd-efgh-ijkl-mnop)`);
        }
        await checkLimitWithHeaders(limit, userId, res);
        try {
          return await useSecondFactor(client, deps, userId, { secretEnc: row.totp_secret_enc, lastStep: row.lastStep }, code);
        } catch (error) {
          await limit.record(userId);
          throw error;
        }
      });
      if (used) reportSecondFactor(deps, userId, used);
    },
  };
}

/**
 * `TightLimit.check`, plus X-RateLimit-* headers describing this limit on a 429, so a client that waits
 * until X-RateLimit-Reset waits long enough (the middleware form does this itself).
 */
export async function checkLimitWithHeaders(limit: TightLimit, userId: string, res: Response): Promise<void> {
  try {
    await limit.check(userId);
  } catch (error) {
    setRateLimitHeaders(res, await limit.limiter.peek(userId));
    throw error;
  }
}

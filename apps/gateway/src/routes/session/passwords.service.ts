import { transaction } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import type { Logger } from '@hashwatch/logger';
import { hashPassword, hashToken, verifyPassword } from '@hashwatch/secrets';
import type { GatewayDeps } from '../../deps';
import { issueOneTimeToken } from '../../sessions/one-time-tokens';
import { endSessions } from '../../sessions/session-store';
import { publicLink, type SelfServiceOptions } from './self-service-options';
import { mailSecurityChange } from '../../sessions/security-mail';
import { emailLimitKey } from './sign-in.service';
import { Limiter } from '../../middleware/rate-limiters';

/** A reset link works once, within 30 minutes. */
const RESET_TTL_MS = 30 * 60_000;

function resetMail(link: string): { subject: string; text: string } {
  return {
    subject: 'Reset your Hashwatch password',
    text: [
      'Someone asked to reset the password of the Hashwatch account of this address.',
      '',
      `Open this link within 30 minutes to choose a new password (it works once):`,
      link,
      '',
      'If it was not you, ignore this mail: the password stays as it is.',
    ].join('\n'),
  };
}

/** Reset mails per email: 3 an hour, so rotating addresses cannot flood one inbox through us. */
const MAILS_PER_EMAIL = 3;
const MAIL_WINDOW_SECONDS = 3600;

/** `POST /v1/session/password-reset`, one instance per gateway. */
export class PasswordResets {
  private readonly perEmail: Limiter;

  constructor(
    private readonly deps: GatewayDeps,
    private readonly options: SelfServiceOptions,
  ) {
    this.perEmail = new Limiter(deps.redis, `${deps.keyPrefix}:rl:reset-email`, MAILS_PER_EMAIL, MAIL_WINDOW_SECONDS);
  }

  /**
   * Answers at once, the same for every email; the lookup, the link and the mail happen after the answer, so
   * neither the answer nor its timing tells whether the email has an account. A failure is logged, never shown.
   */
  request(email: string): { accepted: true } {
    const normalized = email.trim().toLowerCase();
    void this.mailLink(normalized).catch((error: unknown) => {
      this.deps.logger.error('password reset failed', { error: error instanceof Error ? error.message : String(error) });
    });
    return { accepted: true };
  }

  private async mailLink(email: string): Promise<void> {
    const { rows } = await this.deps.db.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [email]);
    const userId = rows[0]?.id;
    if (!userId) return;
    if (!(await this.perEmail.consume(emailLimitKey(email))).allowed) {
      this.deps.logger.warn('password reset mail skipped: this account asked for 3 within the hour');
      return;
    }
    const token = await issueOneTimeToken(this.deps.db.pool, 'password_resets', userId, this.deps.now(), RESET_TTL_MS);
    sendResetMail(this.deps.logger, this.options, email, publicLink(this.options, `/reset-password?token=${token}`));
  }
}

function sendResetMail(logger: Logger, options: SelfServiceOptions, to: string, link: string): void {
  if (!options.mailer) {
    logger.error('password reset requested but no SMTP_URL is configured: the link cannot be mailed');
    return;
  }
  options.mailer.send({ to, ...resetMail(link) }).catch((error: unknown) => {
    logger.error('password reset mail failed', { error: error instanceof Error ? error.message : String(error) });
  });
}

const INVALID_RESET_TOKEN = 'token: unknown, expired or already used; ask for a new link';

/**
 * `POST /v1/session/password-reset/confirm`: sets the password of the token's account, spends the token (and
 * every other reset link of the account) and ends every session, all in one transaction.
 */
export async function confirmPasswordReset(deps: GatewayDeps, input: { token: string; password: string }): Promise<{ password_changed: true }> {
  // A link that cannot work costs no scrypt: it is looked up first (and spent below, in the transaction).
  const live = await deps.db.pool.query('SELECT 1 FROM password_resets WHERE token_hash = $1 AND expires_at > $2', [hashToken(input.token), deps.now()]);
  if (live.rowCount === 0) throw new AppError('invalid_request', INVALID_RESET_TOKEN);
  const passwordHash = await hashPassword(input.password);
  const userId = await transaction(deps.db.pool, async (client) => {
    const { rows } = await client.query<{ user_id: string }>('DELETE FROM password_resets WHERE token_hash = $1 AND expires_at > $2 RETURNING user_id', [
      hashToken(input.token),
      deps.now(),
    ]);
    const userId = rows[0]?.user_id;
    if (!userId) throw new AppError('invalid_request', INVALID_RESET_TOKEN);
    await client.query('UPDATE users SET password_hash = $2, updated_at = $3 WHERE id = $1', [userId, passwordHash, deps.now()]);
    await client.query('DELETE FROM password_resets WHERE user_id = $1', [userId]);
    await client.query('DELETE FROM login_challenges WHERE user_id = $1', [userId]);
    await endSessions(client, userId);
    return userId;
  });
  mailSecurityChange(deps, userId, { kind: 'password_reset' });
  return { password_changed: true };
}

/**
 * A signed-in password change: needs the current password; ends every session of the account (the one that made
 * the change too: its browser signs in again with the new password), any pending sign-in step and reset link.
 */
export async function changePassword(
  deps: GatewayDeps,
  auth: { userId: string },
  input: { current_password: string; new_password: string },
): Promise<{ password_changed: true }> {
  const { rows } = await deps.db.pool.query<{ password_hash: string | null }>('SELECT password_hash FROM users WHERE id = $1', [auth.userId]);
  if (!(await verifyPassword(input.current_password, rows[0]?.password_hash ?? null))) {
    throw new AppError('invalid_credentials', 'current_password: wrong password');
  }
  const passwordHash = await hashPassword(input.new_password);
  await transaction(deps.db.pool, async (client) => {
    await client.query('UPDATE users SET password_hash = $2, updated_at = $3 WHERE id = $1', [auth.userId, passwordHash, deps.now()]);
    await client.query('DELETE FROM login_challenges WHERE user_id = $1', [auth.userId]);
    await client.query('DELETE FROM password_resets WHERE user_id = $1', [auth.userId]);
    await endSessions(client, auth.userId);
  });
  mailSecurityChange(deps, auth.userId, { kind: 'password_changed' });
  return { password_changed: true };
}

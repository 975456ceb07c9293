import type { GatewayDeps } from '../deps';
import { publicLink, selfServiceOptions } from '../routes/session/self-service-options';

/** The changes an account's owner hears of by mail (CONTRACT 4), whoever made them. */
export type SecurityChange =
  | { kind: 'two_factor_enabled' }
  | { kind: 'two_factor_disabled' }
  | { kind: 'api_key_regenerated' }
  | { kind: 'password_changed' }
  | { kind: 'password_reset' }
  | { kind: 'recovery_code_used'; remaining: number };

const SUBJECTS: Record<SecurityChange['kind'], string> = {
  two_factor_enabled: 'Two-factor authentication was turned on for your Hashwatch account',
  two_factor_disabled: 'Two-factor authentication was turned off for your Hashwatch account',
  api_key_regenerated: 'Your Hashwatch API key was regenerated',
  password_changed: 'Your Hashwatch password was changed',
  password_reset: 'Your Hashwatch password was reset',
  recovery_code_used: 'A Hashwatch recovery code was used',
};

function describe(change: SecurityChange): string {
  switch (change.kind) {
    case 'two_factor_enabled':
      return 'Two-factor authentication is now on: signing in and sensitive actions need a code from the authenticator app that was enrolled.';
    case 'two_factor_disabled':
      return 'Two-factor authentication is now off: a password alone signs in to the dashboard.';
    case 'api_key_regenerated':
      return 'A new API key was issued; the previous key no longer works.';
    case 'password_changed':
      return 'The dashboard password was changed; every session signed in with the old one has ended.';
    case 'password_reset':
      return 'The dashboard password was set through a reset link; every session signed in with the old one has ended.';
    case 'recovery_code_used':
      return `A recovery code stood in for an authentication code. ${change.remaining} unused recovery code${change.remaining === 1 ? ' is' : 's are'} left.`;
  }
}

/**
 * Mails the account's address that `change` happened, after the change was committed, without holding the request:
 * the mail is sent in the background and a failure is logged (never its address). Nothing is sent without SMTP_URL.
 */
export function mailSecurityChange(deps: GatewayDeps, userId: string, change: SecurityChange): void {
  const options = selfServiceOptions(deps);
  const mailer = options.mailer;
  if (!mailer) return;
  const send = async (): Promise<void> => {
    const { rows } = await deps.db.pool.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId]);
    const to = rows[0]?.email;
    if (!to) return;
    const text = [
      describe(change),
      '',
      `If this was not you, reset your password at ${publicLink(options, '/forgot-password')} and then check Security in the dashboard; an operator can turn two-factor authentication off for you.`,
    ].join('\n');
    await mailer.send({ to, subject: SUBJECTS[change.kind], text });
  };
  void send().catch((error: unknown) => {
    deps.logger.error('security mail failed', { change: change.kind, error: error instanceof Error ? error.message : String(error) });
  });
}

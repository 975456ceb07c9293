/** The changes an account's owner hears of by mail (CONTRACT 4), whoever made them: the owner, a key's holder, an operator. */
export type SecurityChange =
  | { kind: 'two_factor_enabled' }
  | { kind: 'two_factor_disabled'; byOperator?: boolean }
  | { kind: 'api_key_regenerated'; byOperator?: boolean }
  | { kind: 'password_changed'; byOperator?: boolean }
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
  const operator = 'byOperator' in change && change.byOperator ? ' An operator of this Hashwatch made this change.' : '';
  switch (change.kind) {
    case 'two_factor_enabled':
      return 'Two-factor authentication is now on: signing in and sensitive actions need a code from the authenticator app that was enrolled.';
    case 'two_factor_disabled':
      return `Two-factor authentication is now off, and every session has ended: a password alone signs in to the dashboard.${operator}`;
    case 'api_key_regenerated':
      return `A new API key was issued; the previous key no longer works.${operator}`;
    case 'password_changed':
      return `The dashboard password was changed; every session signed in with the old one has ended.${operator}`;
    case 'password_reset':
      return 'The dashboard password was set through a reset link; every session signed in with the old one has ended.';
    case 'recovery_code_used':
      return `A recovery code stood in for an authentication code. ${change.remaining} unused recovery code${change.remaining === 1 ? ' is' : 's are'} left.`;
  }
}

/** The mail telling an account's address of `change`; `resetUrl` is the dashboard's "forgot your password" page. */
export function securityChangeMail(change: SecurityChange, resetUrl: string): { subject: string; text: string } {
  const text = [
    describe(change),
    '',
    `If this was not you, reset your password at ${resetUrl} and then check Security in the dashboard; an operator can turn two-factor authentication off for you.`,
  ].join('\n');
  return { subject: SUBJECTS[change.kind], text };
}

import { z } from 'zod';
import { AppError } from '@hashwatch/errors';
import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { ipLimit } from '../../middleware/tight-limit';
import { clearSessionCookie, CSRF_HEADER, sessionCookie, sessionExpiry, SESSION_COOKIE, type SessionStore } from '../../sessions/session-store';
import { confirmPasswordReset, PasswordResets } from './passwords.service';
import type { SelfServiceOptions } from './self-service-options';
import {
  passwordResetAcceptedSchema,
  passwordResetConfirmSchema,
  passwordResetRequestSchema,
  passwordSetSchema,
  sessionSchema,
  signedInSchema,
  signInResultSchema,
  signInSchema,
  twoFactorLoginSchema,
} from './session.schema';
import { SignIn } from './sign-in.service';

const TAG = 'Accounts and sessions';
// Password-reset mails: 5 requests per 15 minutes per address, so nobody floods an inbox through us.
const RESET_REQUESTS = 5;
const RESET_WINDOW_SECONDS = 15 * 60;

/** Sign-in, its 2FA step, the session itself and password reset: the dashboard's public routes. */
export function registerSessionRoutes(api: ApiBuilder, deps: GatewayDeps, sessions: SessionStore, options: SelfServiceOptions): void {
  const signIn = new SignIn(deps, sessions);
  api.publicRoute({
    method: 'post',
    path: '/session',
    tag: TAG,
    summary: 'Sign in to the dashboard with email and password.',
    description: [
      `Sets the \`${SESSION_COOKIE}\` cookie (HttpOnly, SameSite=Lax), or, while 2FA is on, answers a \`login_token\` for \`POST /v1/2fa/login\` and sets no cookie.`,
      'A wrong password and an unknown email get the same 401. After 10 failures in 15 minutes for one email or from one address, sign-in answers 429, even to the right password, until the window passes. Every sign-in, successful or not, counts against 30 per 15 minutes per email and per address (then 429 with Retry-After). An account keeps at most 20 live sessions: a new one ends the oldest. When too many password checks are waiting, 503 `unavailable` with Retry-After.',
      'A pending account may sign in; its other requests answer 402 until the subscription is active.',
    ].join(' '),
    body: signInSchema,
    success: { status: 200, description: 'Signed in, or the 2FA step comes next.', schema: signInResultSchema },
    errors: ['invalid_credentials'],
    handler: ({ body, req, res }) => signIn.signIn(req, res, body),
  });
  api.publicRoute({
    method: 'post',
    path: '/2fa/login',
    tag: TAG,
    summary: 'Complete a sign-in with the 6-digit code from the authenticator app, or a recovery code.',
    description: 'Takes the `login_token` of `POST /v1/session` (valid 5 minutes, spent by this sign-in) and sets the session cookie. A recovery code in `code` is spent, and its use mailed to the account. Limited to 8 per 5 minutes per account and per address.',
    body: twoFactorLoginSchema,
    success: { status: 200, description: 'Signed in: the cookie is set.', schema: signedInSchema },
    errors: ['unauthorized', 'invalid_two_factor_code'],
    handler: ({ body, req, res }) => signIn.completeTwoFactor(req, res, body),
  });
  api.publicRoute({
    method: 'get',
    path: '/session',
    tag: TAG,
    summary: 'The current session: who is signed in, its CSRF token and when it ends.',
    description: `Needs the session cookie; works for a pending account too. Send \`csrf_token\` as \`${CSRF_HEADER}\` on every unsafe request of this session.`,
    success: { status: 200, description: 'The session.', schema: sessionSchema },
    errors: ['unauthorized'],
    handler: async ({ req }) => {
      const token = sessionCookie(req);
      const row = token === undefined ? undefined : await sessions.find(token);
      if (!token || !row) throw new AppError('unauthorized', 'no valid session: sign in with POST /v1/session');
      return { email: row.email, account_id: row.user_id, csrf_token: sessions.csrfToken(token), expires_at: sessionExpiry(row).toISOString() };
    },
  });
  api.publicRoute({
    method: 'delete',
    path: '/session',
    tag: TAG,
    summary: 'Sign out: ends this session at once.',
    description: 'Answers 204 and clears the cookie, also when the session had already ended.',
    success: { status: 204, description: 'Signed out.', schema: z.void() },
    handler: async ({ req, res }) => {
      const token = sessionCookie(req);
      if (token) await sessions.end(token);
      clearSessionCookie(req, res);
      return undefined;
    },
  });
  registerPasswordResetRoutes(api, deps, options);
}

function registerPasswordResetRoutes(api: ApiBuilder, deps: GatewayDeps, options: SelfServiceOptions): void {
  const resets = new PasswordResets(deps, options);
  api.publicRoute({
    method: 'post',
    path: '/session/password-reset',
    tag: TAG,
    summary: 'Mail a password-reset link.',
    description: 'Answers 202 whatever the email, so the answer never tells whether it has an account. The link works once, within 30 minutes. Limited to 5 per 15 minutes per address; at most 3 mails an hour reach one email.',
    before: [ipLimit(deps, 'password-reset', 'POST /session/password-reset', RESET_REQUESTS, RESET_WINDOW_SECONDS)],
    body: passwordResetRequestSchema,
    success: { status: 202, description: 'Accepted: a link is mailed when the email has an account.', schema: passwordResetAcceptedSchema },
    handler: async ({ body }) => resets.request(body.email),
  });
  api.publicRoute({
    method: 'post',
    path: '/session/password-reset/confirm',
    tag: TAG,
    summary: 'Set a new password with the token of a reset link.',
    description: 'Spends the token; every session of the account ends. Sign in again with the new password.',
    before: [ipLimit(deps, 'password-reset-confirm', 'POST /session/password-reset/confirm', 20, RESET_WINDOW_SECONDS)],
    body: passwordResetConfirmSchema,
    success: { status: 200, description: 'The password is set.', schema: passwordSetSchema },
    handler: ({ body }) => confirmPasswordReset(deps, body),
  });
}

import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { disableTwoFactorSchema, enableTwoFactorResultSchema, enableTwoFactorSchema, twoFactorStateSchema } from './two-factor.schema';
import { confirmTwoFactorSetup, disableTwoFactor, requireReauthentication, startTwoFactorSetup, type TwoFactorGuard } from './two-factor.service';

const REAUTHENTICATION_NOTE =
  'Made with an API key (not a session) on an account that has a dashboard password, the request also needs that `password` in the body: missing or wrong, 403 `invalid_credentials` and nothing changes. Every change is mailed to the account’s address.';
const REAUTHENTICATION_ERROR = { code: 'invalid_credentials', status: 403 } as const;

const LIMIT_NOTE =
  'Limited to 6 requests per 5 minutes per account, shared with /2fa/enable, /2fa/disable and wrong `X-TOTP-Code` codes on sensitive actions; every request counts.';

export function registerTwoFactorRoutes(api: ApiBuilder, deps: GatewayDeps, guard: TwoFactorGuard): void {
  api.route({
    method: 'post',
    path: '/2fa/enable',
    tag: 'Two-factor authentication',
    summary: 'Set up TOTP two-factor authentication, then confirm it with a code.',
    description: [
      'Without `code` (send `{}`): issues a new secret (replacing any unconfirmed one) and answers it with its `otpauth://` URL and QR code; 2FA stays off.',
      'With `code`: checks it against that secret, turns 2FA on and answers 10 one-time `recovery_codes`, shown this once. Codes are 6 digits, 30-second steps, ±1 step of drift, each usable once.',
      'While 2FA is on, `POST /apikey/regenerate` and `DELETE /me` need the header `X-TOTP-Code`; wherever a code is asked for, a recovery code may stand in for it once.',
      REAUTHENTICATION_NOTE,
      LIMIT_NOTE,
    ].join(' '),
    body: enableTwoFactorSchema,
    success: { status: 200, description: 'The pending secret (no code sent), or `{enabled: true}`.', schema: enableTwoFactorResultSchema },
    errors: ['invalid_two_factor_code', 'already_exists', REAUTHENTICATION_ERROR],
    limit: guard.limit,
    handler: async ({ auth, body }) => {
      await requireReauthentication(deps, auth, body.password);
      return body.code === undefined ? startTwoFactorSetup(deps, auth.userId) : confirmTwoFactorSetup(deps, auth.userId, body.code);
    },
  });
  api.route({
    method: 'post',
    path: '/2fa/disable',
    tag: 'Two-factor authentication',
    summary: 'Turn two-factor authentication off with a current code or a recovery code.',
    description: `The unused recovery codes end with it. Answers 400 \`invalid_request\` when 2FA is not on. ${REAUTHENTICATION_NOTE} ${LIMIT_NOTE}`,
    body: disableTwoFactorSchema,
    success: { status: 200, description: '2FA is off: `{enabled: false}`.', schema: twoFactorStateSchema },
    errors: ['invalid_two_factor_code', REAUTHENTICATION_ERROR],
    limit: guard.limit,
    handler: async ({ auth, body }) => {
      await requireReauthentication(deps, auth, body.password);
      return disableTwoFactor(deps, auth.userId, body.code);
    },
  });
}

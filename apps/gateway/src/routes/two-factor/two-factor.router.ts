import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { disableTwoFactorSchema, enableTwoFactorResultSchema, enableTwoFactorSchema, twoFactorStateSchema } from './two-factor.schema';
import { confirmTwoFactorSetup, disableTwoFactor, startTwoFactorSetup, type TwoFactorGuard } from './two-factor.service';

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
      'With `code`: checks it against that secret and turns 2FA on. Codes are 6 digits, 30-second steps, ±1 step of drift, each usable once.',
      'While 2FA is on, `POST /apikey/regenerate` and `DELETE /me` need the header `X-TOTP-Code`.',
      LIMIT_NOTE,
    ].join(' '),
    body: enableTwoFactorSchema,
    success: { status: 200, description: 'The pending secret (no code sent), or `{enabled: true}`.', schema: enableTwoFactorResultSchema },
    errors: ['invalid_two_factor_code', 'already_exists'],
    limit: guard.limit,
    handler: ({ auth, body }) => (body.code === undefined ? startTwoFactorSetup(deps, auth.userId) : confirmTwoFactorSetup(deps, auth.userId, body.code)),
  });
  api.route({
    method: 'post',
    path: '/2fa/disable',
    tag: 'Two-factor authentication',
    summary: 'Turn two-factor authentication off with a current code.',
    description: `Answers 400 \`invalid_request\` when 2FA is not on. ${LIMIT_NOTE}`,
    body: disableTwoFactorSchema,
    success: { status: 200, description: '2FA is off: `{enabled: false}`.', schema: twoFactorStateSchema },
    errors: ['invalid_two_factor_code'],
    limit: guard.limit,
    handler: ({ auth, body }) => disableTwoFactor(deps, auth.userId, body.code),
  });
}

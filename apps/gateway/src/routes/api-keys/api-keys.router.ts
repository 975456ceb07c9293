import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { TOTP_HEADER, totpHeaderSchema } from '../two-factor/two-factor.schema';
import type { TwoFactorGuard } from '../two-factor/two-factor.service';
import { regeneratedKeySchema } from './api-keys.schema';
import { regenerateApiKey, regenerationLimit } from './api-keys.service';

export function registerApiKeyRoutes(api: ApiBuilder, deps: GatewayDeps, guard: TwoFactorGuard): void {
  const limit = regenerationLimit(deps);
  api.route({
    method: 'post',
    path: '/apikey/regenerate',
    tag: 'API keys',
    summary: 'Issue a new API key; the old one stops working at once.',
    description: [
      'The old key answers 401 from this moment, on every replica. Takes no body.',
      `While 2FA is on, send the current code in \`${TOTP_HEADER}\`; wrong codes count against the 2FA limit (6 per 5 minutes).`,
      'Limited to 1 regeneration per 15 minutes per account. Only successful regenerations count: a request refused for a missing or wrong code, or for any other error, does not start the 15 minutes.',
    ].join(' '),
    headers: totpHeaderSchema,
    success: { status: 200, description: 'The new key.', schema: regeneratedKeySchema },
    errors: ['invalid_request', 'two_factor_required', 'invalid_two_factor_code'],
    handler: ({ auth, req, res }) => regenerateApiKey(deps, limit, guard, auth.userId, req.header(TOTP_HEADER), res),
  });
}

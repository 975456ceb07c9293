import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { ipLimit } from '../../middleware/tight-limit';
import type { SelfServiceOptions } from '../session/self-service-options';
import { checkoutSchema, checkoutStartedSchema } from './checkout.schema';
import { startCheckout } from './checkout.service';

// POST /api/checkout: 20 per minute per client IP.
const CHECKOUTS_PER_MINUTE = 20;

export function registerCheckoutRoutes(api: ApiBuilder, deps: GatewayDeps, options: SelfServiceOptions): void {
  api.publicRoute({
    method: 'post',
    path: '/api/checkout',
    tag: 'Accounts and sessions',
    summary: 'Start a subscription: creates a pending account and answers where to pay.',
    description: [
      'Public, no key. Creates a pending account (or reuses the pending one of that email, replacing its plan and password).',
      'A pending account may sign in (`POST /v1/session`); every other endpoint answers it 402 `subscription_inactive` until the subscription is active.',
      'An email whose account has a subscription answers 409 `already_exists`. Limited to 20 per minute per client address.',
    ].join(' '),
    before: [ipLimit(deps, 'checkout', 'POST /api/checkout', CHECKOUTS_PER_MINUTE, 60)],
    body: checkoutSchema,
    success: { status: 201, description: 'The checkout: open `url` to pay.', schema: checkoutStartedSchema },
    errors: ['already_exists', 'service_unavailable'],
    handler: ({ body }) => startCheckout(deps, options, body),
  });
}

import type { ApiBuilder } from '../http/api-builder';
import type { GatewayDeps } from '../deps';
import { registerAccountRoutes } from './accounts/accounts.router';
import { registerApiKeyRoutes } from './api-keys/api-keys.router';
import { registerMeRoutes } from './me/me.router';
import { notificationOptions } from './notifications/notification-options';
import { registerNoticeRoutes } from './notices/notices.router';
import { registerNotificationRoutes } from './notifications/notifications.router';
import { registerPostRoutes } from './posts/posts.router';
import { registerTrackRoutes } from './tracks/tracks.router';
import { registerTwoFactorRoutes } from './two-factor/two-factor.router';
import { createTwoFactorGuard } from './two-factor/two-factor.service';
import type { SessionStore } from '../sessions/session-store';
import { registerBillingRoutes } from './billing/billing.router';
import { registerCheckoutRoutes } from './checkout/checkout.router';
import { selfServiceOptions } from './session/self-service-options';
import { registerSessionRoutes } from './session/session.router';

/** Every /v1 route, in the order the OpenAPI document lists them. */
export function registerRoutes(api: ApiBuilder, deps: GatewayDeps, sessions: SessionStore): void {
  const selfService = selfServiceOptions(deps);
  registerCheckoutRoutes(api, deps, selfService);
  registerSessionRoutes(api, deps, sessions, selfService);
  registerTrackRoutes(api, deps);
  registerAccountRoutes(api, deps);
  // One 2FA guard: its limit is shared by /2fa/* and the wrong X-TOTP-Code codes of sensitive actions.
  const twoFactor = createTwoFactorGuard(deps);
  registerMeRoutes(api, deps, twoFactor, selfService);
  registerTwoFactorRoutes(api, deps, twoFactor);
  registerApiKeyRoutes(api, deps, twoFactor);
  registerPostRoutes(api, deps);
  registerNotificationRoutes(api, deps, notificationOptions(deps));
  registerNoticeRoutes(api, deps);
  registerBillingRoutes(api, deps, selfService);
}

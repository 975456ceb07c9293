import type { RedisClient } from '@hashwatch/queues';
import type { Database } from '@hashwatch/db';
import type { Logger } from '@hashwatch/logger';
import type { Cipher } from '@hashwatch/secrets';

/** Everything the gateway needs from outside, passed in by main.ts (or by a test). */
export interface GatewayDeps {
  db: Database;
  redis: RedisClient;
  logger: Logger;
  /** Seals and opens the secrets kept at rest: TOTP secrets, webhook signing secrets and bot tokens. */
  cipher: Cipher;
  /** Derives the key that signs feed cursors. */
  secretsKey: string;
  /** QUEUE_PREFIX: every Redis key the gateway writes starts with it. */
  keyPrefix: string;
  now: () => Date;
  /** TRUST_PROXY: how many proxies in front append to X-Forwarded-For (0: the socket's address is the client's). */
  trustProxy?: number;
  /** Checks every response body against its documented schema (tests turn this on). */
  validateResponses?: boolean;
  /** Sender, TELEGRAM_API_BASE_URL and WEBHOOK_ALLOW_PRIVATE_NETWORKS for /notifications; omitted: production defaults. */
  notifications?: import('./routes/notifications/notification-options').NotificationOptions;
  /** The built dashboard (index.html, assets/) served at `/`; omitted: `@hashwatch/dashboard`'s dist folder. */
  dashboardDir?: string;
  /** GET /metrics's registry (request latency, queue backlog); omitted: one of its own without queue counts. */
  metrics?: import('./metrics/gateway-metrics').GatewayMetrics;
  /** METRICS_TOKEN: when set, GET /metrics needs it as a bearer token; omitted, /metrics is open. */
  metricsToken?: string;
  /** Billing provider, PUBLIC_URL and mail for checkout, sessions and password reset; omitted: manual billing, no mail. */
  selfService?: import('./routes/session/self-service-options').SelfServiceOptions;
  /** ADMIN_USER/ADMIN_PASSWORD and the queues: Bull Board at /admin/queues; omitted, nothing is mounted there. */
  queueConsole?: {
    credentials: { user: string; password: string };
    queues: import('@hashwatch/queues').Queues;
    formerQueues?: readonly import('bullmq').Queue[] | Promise<readonly import('bullmq').Queue[]>;
  };
}

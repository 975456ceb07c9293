import { z } from 'zod';
import { configSchema, envPort } from '@hashwatch/config';

/** The inbox stands in for the outside world: of the shared variables it uses only LOG_LEVEL (a malformed one stops it, as it stops every app). */
export const inboxConfig = configSchema.extend({
  ALERT_INBOX_PORT: envPort.default(4200).describe("The demo alert inbox's HTTP port (webhooks, its page, `/alerts` and `/mail`)."),
  // 42xx like the inbox's HTTP port, 25 for SMTP.
  ALERT_INBOX_SMTP_PORT: envPort
    .default(4225)
    .describe("The demo alert inbox's SMTP port (no auth, no TLS, mail up to 1 MiB; `0` picks a free one)."),
  ALERT_INBOX_HOST: z.string().min(1).default('127.0.0.1').describe("The address the demo alert inbox listens on."),
  ALERT_INBOX_SECRET: z
    .string()
    .startsWith('whsec_')
    .optional()
    .describe("A `whsec_…` secret: json alerts to the demo alert inbox must then carry a valid Standard Webhooks signature (401 otherwise)."),
});

import { z } from 'zod';

/** `Name <address>` or a bare address, as a From header takes it. */
const FROM = /^(?:[^<>\r\n]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/;

/**
 * The mail settings an app that sends mail adds to its environment:
 * `configSchema.extend(mailConfig)` (packages/config). `SMTP_URL` is optional, so an app decides what to do
 * without it; a malformed one stops the app at start-up naming it (zod never echoes the value, so its
 * password stays out of the message).
 */
export const mailConfig = {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465` (TLS from the start). */
  SMTP_URL: z
    .url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' })
    .optional()
    .describe("The mail server for password-reset links and security notices: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://user:pass@host:465`. A send gives up after 10 s without an answer or 30 s in all; `npm start` points it at the demo alert inbox."),
  MAIL_FROM: z
    .string()
    .regex(FROM, 'must be an address or Name <address>')
    .default('Hashwatch <no-reply@localhost>')
    .describe("The From of every mail: `Name <address>` or an address."),
};

/** The parsed mail settings. */
export type MailConfig = z.output<z.ZodObject<typeof mailConfig>>;

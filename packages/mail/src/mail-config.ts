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
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z
    .string()
    .regex(FROM, 'must be an address or Name <address>')
    .default('Hashwatch <no-reply@localhost>'),
};

/** The parsed mail settings. */
export type MailConfig = z.output<z.ZodObject<typeof mailConfig>>;

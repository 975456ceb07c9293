import { z } from 'zod';
import { configSchema } from '@hashwatch/config';
import { mailConfig } from '@hashwatch/mail';

// SMTP_URL, MAIL_FROM and PUBLIC_URL as the gateway reads them: a change an operator makes is mailed like the owner's.
export const adminConfigSchema = configSchema.extend({
  ...mailConfig,
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://watch.example.com' })
    .default('http://localhost:3000')
    .describe("The gateway's public origin: the links it hands out (checkout pages, password-reset links, the billing portal's way back) and those in mail."),
});

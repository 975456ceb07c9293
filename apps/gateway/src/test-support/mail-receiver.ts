import { createManualBilling } from '@hashwatch/billing';
import { createLogger } from '@hashwatch/logger';
import { createMailer } from '@hashwatch/mail';
import type { MailReceiver } from '@hashwatch/testing';
import type { SelfServiceOptions } from '../routes/session/self-service-options';

/** Self-service options that mail through `receiver`: manual billing, links on `publicUrl`. */
export function mailingSelfService(receiver: MailReceiver, publicUrl: string, autoActivate: boolean): SelfServiceOptions {
  return {
    billing: createManualBilling({ publicUrl }),
    autoActivate,
    publicUrl,
    mailer: createMailer({ smtpUrl: receiver.url, from: 'Hashwatch <no-reply@example.com>', logger: createLogger('gateway', { level: 'error' }) }),
    stripeWebhook: null,
  };
}

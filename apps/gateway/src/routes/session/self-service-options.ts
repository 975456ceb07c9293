import { createManualBilling, type BillingProvider, type HandledWebhook } from '@hashwatch/billing';

/** One outgoing mail (password reset). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail through SMTP_URL (@hashwatch/mail); null when the deployment has none. */
export interface MailSender {
  send(message: MailMessage): Promise<void>;
}

/** What checkout, sessions and password reset need beyond GatewayDeps; main.ts builds it from the environment. */
export interface SelfServiceOptions {
  /** BILLING_PROVIDER's provider. */
  billing: BillingProvider;
  /** BILLING_AUTO_ACTIVATE: a checkout under `manual` activates at once (the demo). */
  autoActivate: boolean;
  /** PUBLIC_URL: the origin the links we hand out (checkout, password reset) are built on. */
  publicUrl: string;
  mailer: MailSender | null;
  /** Verifies and applies one Stripe webhook delivery (BILLING_PROVIDER=stripe); null under `manual`. */
  stripeWebhook: ((rawBody: Buffer, signature: string | undefined) => Promise<HandledWebhook>) | null;
}

/** PUBLIC_URL's default. */
export const DEFAULT_PUBLIC_URL = 'http://localhost:3000';

/** `deps.selfService`, or the defaults: manual billing without auto-activation, no mail. */
export function selfServiceOptions(deps: { selfService?: SelfServiceOptions }): SelfServiceOptions {
  return deps.selfService ?? { billing: createManualBilling({ publicUrl: DEFAULT_PUBLIC_URL }), autoActivate: false, publicUrl: DEFAULT_PUBLIC_URL, mailer: null, stripeWebhook: null };
}

/** An absolute address on PUBLIC_URL. */
export function publicLink(options: SelfServiceOptions, path: string): string {
  return `${options.publicUrl.replace(/\/+$/, '')}${path}`;
}

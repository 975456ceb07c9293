export { BillingUnavailableError } from './provider';
export type { BillingProvider, BillingProviderName, CheckoutRequest, StartedCheckout } from './provider';
export { createManualBilling } from './manual';
export { createStripeBilling, StripeBillingConfigError } from './stripe/stripe-billing';
export type { StripeBilling, StripeBillingOptions } from './stripe/stripe-billing';
export type { HandledWebhook } from './stripe/stripe-webhook';
export type { WebhookOutcome } from './stripe/apply-billing-event';
export { WebhookSignatureError, StripeObjectError } from './stripe/stripe-errors';

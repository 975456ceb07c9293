export { BillingUnavailableError } from './provider';
export type { BillingProvider, BillingProviderName, CheckoutRequest, StartedCheckout } from './provider';
export { createManualBilling } from './manual';

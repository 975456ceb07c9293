import type { PlanId } from '@hashwatch/plans';

export type BillingProviderName = 'manual' | 'stripe';

/** What a provider needs to open a checkout for a pending account. */
export interface CheckoutRequest {
  /** Our id of the checkout (`chk_…`). */
  checkoutId: string;
  accountId: string;
  email: string;
  plan: PlanId;
  /** The provider's customer id when the account already has one (a returning customer); else null. */
  customerId: string | null;
  /** Where the provider sends the person after paying, and after giving up. */
  successUrl: string;
  cancelUrl: string;
}

export interface StartedCheckout {
  /** The absolute address the person opens to pay (or to wait for activation). */
  url: string;
  /** The provider's own id of the checkout (a Stripe Checkout Session `cs_…`); null under `manual`. */
  providerSessionId: string | null;
}

/**
 * One billing provider, chosen by `BILLING_PROVIDER`. Subscription state reaches the database through the
 * provider's own path (Stripe: signed webhooks; manual: the operator's `account:subscription`), not through
 * these calls.
 */
export interface BillingProvider {
  readonly name: BillingProviderName;
  startCheckout(request: CheckoutRequest): Promise<StartedCheckout>;
  /**
   * Makes an open checkout unpayable (a newer checkout of the same account replaces it): `closed`, or `completed`
   * when it was paid already. Nothing to do for a provider without checkout pages of its own (`manual`).
   */
  closeCheckout(providerSessionId: string): Promise<'closed' | 'completed'>;
  /** Where the customer changes plan or cancels; null when the operator does it (`manual`). */
  portalUrl(account: { customerId: string | null }, returnUrl: string): Promise<string | null>;
  /** Ends the provider's subscription at once (account deletion); nothing to do without one. */
  cancelSubscription(account: { subscriptionId: string | null }): Promise<void>;
}

/** The provider did not answer, or refused a call: nothing was changed on our side, the caller may retry. */
export class BillingUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BillingUnavailableError';
  }
}

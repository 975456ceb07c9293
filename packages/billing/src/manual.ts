import type { BillingProvider } from './provider';

/**
 * Self-hosting without a payment provider: the checkout's address is the dashboard's page for it, which says the
 * subscription waits for the operator (`admin account:subscription`); plan changes and cancellation are the
 * operator's too.
 */
export function createManualBilling(options: { publicUrl: string }): BillingProvider {
  const base = options.publicUrl.replace(/\/+$/, '');
  return {
    name: 'manual',
    async startCheckout(request) {
      return { url: `${base}/checkout/${encodeURIComponent(request.checkoutId)}`, providerSessionId: null };
    },
    async closeCheckout() {
      return 'closed' as const;
    },
    async portalUrl() {
      return null;
    },
    async cancelSubscription() {
      // Nothing outside this database bills the account.
    },
  };
}

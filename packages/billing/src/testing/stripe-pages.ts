// The hosted pages a person opens: the Checkout Session's `url` (a "Pay" button that completes it and goes on
// to the session's success_url, as Stripe's hosted Checkout does) and the Billing Portal session's `url`. They
// let a browser test or the demo walk the whole sign-up without Stripe.
import type { StripeAccount } from './stripe-account';
import type { PageRoute } from './stripe-http';
import { StripeApiError } from './stripe-objects';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

function notFound(id: string): { status: number; body: string } {
  return { status: 404, body: page('Not found', `<p>No such session: ${escapeHtml(id)}</p>`) };
}

function find<T>(lookup: () => T): T | null {
  try {
    return lookup();
  } catch (error) {
    if (error instanceof StripeApiError) return null;
    throw error;
  }
}

export function stripePages(account: StripeAccount, completeCheckout: (sessionId: string) => void): PageRoute[] {
  return [
    {
      method: 'GET',
      path: /^\/c\/pay\/([^/]+)$/,
      handle: ([id = '']) => {
        const session = find(() => account.session(id));
        if (!session) return notFound(id);
        if (session.status !== 'open') return { status: 200, body: page('Checkout', `<p>This checkout session is ${escapeHtml(session.status)}.</p>`) };
        const who = session.customer_email ?? session.customer ?? '';
        const amount = (session.amount_total / 100).toFixed(2);
        const form = `<p>${escapeHtml(who)} pays ${amount} USD a month.</p><form method="post"><button type="submit">Pay</button></form>`;
        return { status: 200, body: page('Checkout', form) };
      },
    },
    {
      method: 'POST',
      path: /^\/c\/pay\/([^/]+)$/,
      handle: ([id = '']) => {
        const session = find(() => account.session(id));
        if (!session) return notFound(id);
        if (session.status === 'open') completeCheckout(id);
        // Stripe fills in the template variable {CHECKOUT_SESSION_ID} of success_url.
        const next = (session.success_url ?? '').replace('{CHECKOUT_SESSION_ID}', encodeURIComponent(id));
        if (!next) return { status: 200, body: page('Checkout', '<p>Paid.</p>') };
        return { status: 303, headers: { location: next }, body: '' };
      },
    },
    {
      method: 'GET',
      path: /^\/p\/session\/([^/]+)$/,
      handle: ([id = '']) => {
        const portal = account.portalSessions.get(id);
        if (!portal) return notFound(id);
        const back = portal.return_url ? `<p><a href="${escapeHtml(portal.return_url)}">Return</a></p>` : '';
        return { status: 200, body: page('Billing portal', `<p>Customer ${escapeHtml(portal.customer)}.</p>${back}`) };
      },
    },
  ];
}

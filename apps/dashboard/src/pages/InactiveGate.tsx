import { useMutation } from '@tanstack/react-query';
import type { FormEvent, ReactNode } from 'react';
import { useLocation } from 'wouter';
import { api, HashwatchError } from '../api/client';
import { useMe } from '../api/queries';
import { SelectField } from '../components/Field';
import { ErrorNote, Loading } from '../components/Status';
import { PortalButton } from './BillingPage';
import { PLANS } from './SignUpPage';

/**
 * A canceled subscription is not restarted on the provider's page (Stripe's portal cannot): this opens a new
 * checkout for the same account, which keeps its sources, channels and feed. For any other inactive status the API
 * answers why not (pay from the portal), and that is shown.
 */
function SubscribeAgain() {
  const [, navigate] = useLocation();
  const restart = useMutation({
    mutationFn: (plan: (typeof PLANS)[number][0]) => api.post('/v1/billing/checkout', { body: { plan } }),
    onSuccess: (checkout) => {
      const target = new URL(checkout.url, window.location.href);
      // The dashboard's own checkout page (manual billing) opens here; the provider's page is left to.
      if (target.origin === window.location.origin || target.pathname === `/checkout/${checkout.checkout_id}`) navigate(`/checkout/${checkout.checkout_id}`);
      else window.location.assign(target.href);
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    restart.mutate(String(new FormData(event.currentTarget).get('plan')) as (typeof PLANS)[number][0]);
  };
  return (
    <form className="subscribe-again" onSubmit={submit} noValidate>
      <h2>Subscribe again</h2>
      <p>After a cancellation, a new subscription keeps this account with its sources, channels and feed.</p>
      <SelectField label="Plan" name="plan" defaultValue="pro" options={PLANS} />
      <button type="submit" aria-busy={restart.isPending} disabled={restart.isPending}>
        Subscribe again
      </button>
      {restart.error ? <ErrorNote error={restart.error} /> : null}
    </form>
  );
}

/**
 * Every page needs an active subscription (the API answers 402 otherwise): until then this says why, in the API's
 * words, and offers the provider's page where one exists.
 */
export function InactiveGate({ children }: { children: ReactNode }) {
  const me = useMe();
  if (me.isPending) return <Loading what="your account" />;
  if (me.error instanceof HashwatchError && me.error.code === 'subscription_inactive') {
    return (
      <section>
        <h1>Subscription not active</h1>
        <p>{me.error.message}</p>
        <p>A new subscription waits for payment or for the operator to activate it. This page checks again when you come back to it.</p>
        <PortalButton />
        <SubscribeAgain />
      </section>
    );
  }
  if (me.error) return <ErrorNote error={me.error} />;
  return children;
}

import type { ReactNode } from 'react';
import { HashwatchError } from '../api/client';
import { useMe } from '../api/queries';
import { ErrorNote, Loading } from '../components/Status';
import { PortalButton } from './BillingPage';

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
      </section>
    );
  }
  if (me.error) return <ErrorNote error={me.error} />;
  return children;
}

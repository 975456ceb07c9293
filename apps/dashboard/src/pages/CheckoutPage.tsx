import { useQuery } from '@tanstack/react-query';
import { Link, useSearch } from 'wouter';
import { api, HashwatchError } from '../api/client';
import { useSession } from '../api/session';
import { ErrorNote, Loading } from '../components/Status';

/** The account's subscription state: active, waiting (402), or a failure to show. */
async function subscriptionState(): Promise<'active' | 'waiting'> {
  try {
    await api.get('/v1/me');
    return 'active';
  } catch (error) {
    if (error instanceof HashwatchError && error.code === 'subscription_inactive') return 'waiting';
    throw error;
  }
}

/**
 * Where a checkout lands: with an operator activating subscriptions it waits here (polling) until the account is
 * active; with Stripe the payment page returns here.
 */
export function CheckoutPage() {
  const { session } = useSession();
  // Stripe's page returns here with ?status=success or ?status=canceled.
  const returned = new URLSearchParams(useSearch()).get('status');
  const state = useQuery({
    queryKey: ['subscription-state'],
    queryFn: subscriptionState,
    enabled: Boolean(session),
    refetchInterval: (query) => (query.state.data === 'active' ? false : 2_000),
  });
  return (
    <main className="container narrow">
      <h1>Subscription</h1>
      {returned === 'canceled' ? (
        <p role="status">
          The payment was canceled and nothing was charged. <Link href="/signup">Start again</Link> when you are ready.
        </p>
      ) : null}
      {!session ? (
        <p>
          Your checkout was received. <Link href="/signin">Sign in</Link> to see whether your subscription is active.
        </p>
      ) : state.data === 'active' ? (
        <>
          <p>Your subscription is active.</p>
          <p>
            <Link href="/">Go to overview</Link>
          </p>
        </>
      ) : state.data === 'waiting' ? (
        <>
          <p aria-busy="true">Waiting for activation</p>
          <p>
            Your account {session.email} is created.{' '}
            {returned === 'success'
              ? 'The payment went through; the provider confirms it within moments.'
              : 'It becomes active once paid, or when the operator activates it.'}{' '}
            This page updates by itself.
          </p>
        </>
      ) : state.error ? (
        <ErrorNote error={state.error} />
      ) : (
        <Loading what="your subscription" />
      )}
    </main>
  );
}

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ComponentType } from 'react';
import { Redirect, Route, Switch } from 'wouter';
import { HashwatchError } from './api/client';
import { SessionProvider, useSession } from './api/session';
import { ErrorNote, Loading } from './components/Status';
import { AppLayout } from './layout/AppLayout';
import { AccountsPage, TracksPage } from './pages/SourcesPage';
import { ApiKeyPage } from './pages/ApiKeyPage';
import { BillingPage } from './pages/BillingPage';
import { CheckoutPage } from './pages/CheckoutPage';
import { FeedPage } from './pages/FeedPage';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/PasswordResetPages';
import { NotificationsPage } from './pages/NotificationsPage';
import { OverviewPage } from './pages/OverviewPage';
import { SecurityPage } from './pages/SecurityPage';
import { SignInPage } from './pages/SignInPage';
import { SignUpPage } from './pages/SignUpPage';
import { InactiveGate } from './pages/InactiveGate';

/** Retries what may pass on a second try; never a 4xx, which would answer the same. */
function retry(failures: number, error: unknown): boolean {
  if (error instanceof HashwatchError && error.status >= 400 && error.status < 500) return false;
  return failures < 2;
}

/**
 * The app's query client. A 401 on any request means the session ended (expired, signed out elsewhere, password
 * changed): the session is read again, comes back null, and every page redirects to sign-in.
 */
export function createQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (error, query) => sessionEnded(error, query.queryKey[0]) }),
    mutationCache: new MutationCache({ onError: (error) => sessionEnded(error, undefined) }),
    defaultOptions: { queries: { retry, refetchOnWindowFocus: true, staleTime: 5_000 }, mutations: { retry: false } },
  });
  function sessionEnded(error: unknown, key: unknown): void {
    if (key !== 'session' && error instanceof HashwatchError && error.status === 401) void client.invalidateQueries({ queryKey: ['session'] });
  }
  return client;
}

const SIGNED_IN: [string, ComponentType][] = [
  ['/', OverviewPage],
  ['/tracks', TracksPage],
  ['/accounts', AccountsPage],
  ['/feed', FeedPage],
  ['/notifications', NotificationsPage],
  ['/api-key', ApiKeyPage],
  ['/security', SecurityPage],
  ['/billing', BillingPage],
];

function SignedInPages() {
  return (
    <AppLayout>
      <InactiveGate>
        <Switch>
          {SIGNED_IN.map(([path, Page]) => (
            <Route key={path} path={path} component={Page} />
          ))}
          <Route>
            <h1>Page not found</h1>
            <p>There is no such page. Use the navigation above.</p>
          </Route>
        </Switch>
      </InactiveGate>
    </AppLayout>
  );
}

/** Pages for a visitor (sign-in, sign-up, password reset) or for the signed-in account; each redirects to the other side. */
function Pages() {
  const { session, error, refresh } = useSession();
  if (session === undefined && error) {
    return (
      <main className="container narrow">
        <h1>Hashwatch</h1>
        <ErrorNote error={error} />
        <button type="button" onClick={() => void refresh()}>
          Try again
        </button>
      </main>
    );
  }
  if (session === undefined) return <Loading what="your session" />;
  return (
    <Switch>
      <Route path="/signin">{session ? <Redirect to="/" /> : <SignInPage />}</Route>
      <Route path="/signup">{session ? <Redirect to="/" /> : <SignUpPage />}</Route>
      <Route path="/forgot-password" component={ForgotPasswordPage} />
      <Route path="/reset-password" component={ResetPasswordPage} />
      <Route path="/checkout/:id" component={CheckoutPage} />
      <Route>{session ? <SignedInPages /> : <Redirect to="/signin" />}</Route>
    </Switch>
  );
}

export function App({ client }: { client?: QueryClient }) {
  // One client for the app's life (a default parameter would make a new one, an empty cache, on every render).
  const [ownClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={client ?? ownClient}>
      <SessionProvider>
        <Pages />
      </SessionProvider>
    </QueryClientProvider>
  );
}

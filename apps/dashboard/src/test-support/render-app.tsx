import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App, createQueryClient } from '../App';
import type { TestAccount } from './accounts';

/**
 * The whole dashboard at `path`, through its own providers (a fresh query client, the session of GET /v1/session),
 * with a user who types and clicks. The page's fetch carries whatever session cookie the test's browser holds.
 */
export function renderApp(path: string) {
  window.history.replaceState(null, '', path);
  const user = userEvent.setup();
  const client = createQueryClient();
  const view = render(<App client={client} />);
  return { user, client, ...view };
}

/** Signs the test's browser in as `account` (POST /v1/session from the page), as if it had used the sign-in form before. */
export async function signInBrowser(account: Pick<TestAccount, 'email' | 'password'>): Promise<void> {
  const response = await fetch('/v1/session', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: account.email, password: account.password }),
  });
  if (!response.ok) throw new Error(`sign-in of ${account.email} answered ${response.status}: ${await response.text()}`);
}

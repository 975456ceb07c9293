import { createClient, HashwatchError } from '@hashwatch/sdk';

let csrfToken: string | undefined;

/** The session's CSRF token, sent as X-CSRF-Token on every unsafe request; set when the session is read. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/**
 * The dashboard's one client of the /v1 API: same origin, so the browser sends the HttpOnly session cookie; the
 * dashboard never holds an API key (it only shows a regenerated one once).
 */
export const api = createClient({
  csrfToken: () => csrfToken,
  // A person is waiting on every call: a 429 is shown at once with its wait ("Try again in 40 s") rather than
  // retried silently behind a spinning button. The feed's watch waits out its own 429s.
  maxRateLimitWaitMs: 0,
});

export { HashwatchError };
export type { FeedItem, Schemas } from '@hashwatch/sdk';

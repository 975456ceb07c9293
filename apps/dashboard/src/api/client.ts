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
export const api = createClient({ csrfToken: () => csrfToken });

export { HashwatchError };
export type { FeedItem, Schemas } from '@hashwatch/sdk';

import type { XEndpointName } from './x-endpoints';
import type { XProblem } from './x-types';

export type XErrorCode =
  | 'x_rate_limited'
  | 'x_usage_capped'
  | 'x_auth_failed'
  | 'x_invalid_request'
  | 'x_unavailable'
  | 'x_user_token_required'
  | 'x_invalid_response'
  | 'x_stream_no_rules';

interface XErrorDetails {
  endpoint: XEndpointName;
  /** The HTTP status X answered; null when no answer came (timeout, refused before calling). */
  status: number | null;
}

/** Base of every error the X client throws. `retryable` says whether the same call can succeed later. */
export class XApiError extends Error {
  readonly endpoint: XEndpointName;
  readonly status: number | null;

  constructor(
    readonly code: XErrorCode,
    message: string,
    details: XErrorDetails,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'XApiError';
    this.endpoint = details.endpoint;
    this.status = details.status;
  }
}

/**
 * Why X answered 429: the endpoint's window is used up (`rate_limit`), or, on the filtered stream, the app
 * already holds its one connection (`too_many_connections`, X's `connection_issue: TooManyConnections`).
 */
export type XRateLimitKind = 'rate_limit' | 'too_many_connections';

/**
 * The endpoint's rate-limit window is used up until `resetAt`. `upstream` is false when the shared budget
 * refused the call before it reached X (another replica already learned the window is empty). `kind` is
 * `too_many_connections` when a stream connect was refused because another connection of the app is open:
 * then `resetAt` is not when it will succeed; back off as X advises for 429s (streamReconnectDelayMs).
 */
export class XRateLimitedError extends XApiError {
  constructor(
    details: XErrorDetails,
    readonly resetAt: Date,
    readonly upstream: boolean,
    readonly kind: XRateLimitKind = 'rate_limit',
  ) {
    super(
      'x_rate_limited',
      kind === 'too_many_connections'
        ? `X refused a second stream connection for ${details.endpoint} (TooManyConnections)`
        : `X rate limit for ${details.endpoint} is used up until ${resetAt.toISOString()}`,
      details,
      true,
    );
    this.name = 'XRateLimitedError';
  }
}

/** X refused the call because the project's post-read cap is reached (`…/problems/usage-capped`). */
export class XUsageCappedError extends XApiError {
  constructor(details: XErrorDetails, detail: string) {
    super('x_usage_capped', `X usage cap reached: ${detail}`, details, true);
    this.name = 'XUsageCappedError';
  }
}

/** 401 or 403: the token is wrong, revoked, or not allowed on this endpoint. Retrying will not help. */
export class XAuthError extends XApiError {
  constructor(details: XErrorDetails, detail: string) {
    super('x_auth_failed', `X refused the credentials for ${details.endpoint}: ${detail}`, details, false);
    this.name = 'XAuthError';
  }
}

/** X (or the client, before calling) found the request invalid: a bad query, parameter or id. */
export class XInvalidRequestError extends XApiError {
  constructor(
    details: XErrorDetails,
    detail: string,
    readonly problems: XProblem[] = [],
  ) {
    super('x_invalid_request', `invalid X request to ${details.endpoint}: ${detail}`, details, false);
    this.name = 'XInvalidRequestError';
  }
}

/** X answered 5xx, did not answer within the timeout, or could not be reached. Retry with backoff. */
export class XUnavailableError extends XApiError {
  constructor(
    details: XErrorDetails,
    readonly reason: 'server_error' | 'timeout' | 'network',
    detail: string,
  ) {
    super('x_unavailable', `X unavailable for ${details.endpoint} (${reason}): ${detail}`, details, true);
    this.name = 'XUnavailableError';
  }
}

/** liking_users needs a user-context token (X refuses app-only bearer tokens there) and none is configured. */
export class XUserTokenRequiredError extends XApiError {
  constructor(endpoint: XEndpointName) {
    super('x_user_token_required', `${endpoint} needs a user-context token (X_USER_TOKEN); none is configured`, { endpoint, status: null }, false);
    this.name = 'XUserTokenRequiredError';
  }
}

/** X answered 200 with a body that does not match the schema the client relies on. */
export class XInvalidResponseError extends XApiError {
  constructor(details: XErrorDetails, detail: string) {
    super('x_invalid_response', `unexpected X response from ${details.endpoint}: ${detail}`, details, true);
    this.name = 'XInvalidResponseError';
  }
}

/** 409 on stream connect: the app has no filtered-stream rules (X's `connection_issue: RuleConfigurationIssue`). Add rules, then connect. */
export class XStreamNoRulesError extends XApiError {
  constructor(details: XErrorDetails, detail: string) {
    super('x_stream_no_rules', `X refused the stream connection: no rules (${detail})`, details, false);
    this.name = 'XStreamNoRulesError';
  }
}

/** Every error code the API can answer with, and its HTTP status. The only code→status map. */
const statusByCode = {
  invalid_request: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  subscription_inactive: 402,
  plan_limit_reached: 403,
  two_factor_required: 403,
  invalid_two_factor_code: 403,
  csrf_failed: 403,
  not_found: 404,
  already_exists: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  delivery_failed: 502,
  service_unavailable: 503,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof statusByCode;

/** An error whose code and message are safe to show to the client. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { retryAfterSeconds?: number; status?: number } = {},
  ) {
    super(message);
    this.name = 'AppError';
    // A code keeps its status, except where CONTRACT names another for one use (a failed re-authentication of a
    // caller that is already authenticated: 403 `invalid_credentials`, not 401, which would say its key is bad).
    this.status = details.status ?? statusByCode[code];
  }
}

export function errorStatus(code: ErrorCode): number {
  return statusByCode[code];
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

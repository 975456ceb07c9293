import type { XEndpointName } from './x-endpoints';
import {
  XApiError,
  XAuthError,
  XInvalidRequestError,
  XRateLimitedError,
  XStreamNoRulesError,
  XUnavailableError,
  XUsageCappedError,
} from './x-errors';
import { errorBodySchema } from './x-response.schema';
import type { XProblem } from './x-types';

/** The rate-limit headers of one answer; null when X sent none (or sent nonsense). */
export interface RateHeaders {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
}

export function readRateHeaders(headers: Record<string, unknown>): RateHeaders | null {
  const read = (name: string) => {
    const raw = headers[name];
    const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
    return Number.isFinite(value) ? value : null;
  };
  const limit = read('x-rate-limit-limit');
  const remaining = read('x-rate-limit-remaining');
  const reset = read('x-rate-limit-reset');
  return limit === null || remaining === null || reset === null ? null : { limit, remaining, reset };
}

// Problem types end the same way under api.twitter.com (2.166) and api.x.com (2.167).
const isType = (type: string | undefined, name: string) => type !== undefined && type.endsWith(`/2/problems/${name}`);

/**
 * Turns a non-200 answer into the matching typed error. Handles both bodies X sends: problem JSON
 * `{type,title,detail}` and `{errors:[{code:88,message}]}`. `fallbackResetAt` is used for a 429 without headers.
 */
export function interpretError(
  endpoint: XEndpointName,
  status: number,
  body: unknown,
  rate: RateHeaders | null,
  fallbackResetAt: Date,
): XApiError {
  const details = { endpoint, status };
  const parsed = errorBodySchema.safeParse(body);
  const error = parsed.success ? parsed.data : {};
  const entries = error.errors ?? [];
  const message = [error.detail ?? error.title, ...entries.map((entry) => entry.message)].filter(Boolean).join(': ') || `HTTP ${status}`;

  if (status === 429 || isType(error.type, 'usage-capped')) {
    if (isType(error.type, 'usage-capped')) return new XUsageCappedError(details, message || 'usage cap exceeded');
    // The filtered stream's one connection per app: a 429 that no window explains (X: back off from 60 s).
    if (error.connection_issue === 'TooManyConnections') return new XRateLimitedError(details, fallbackResetAt, true, 'too_many_connections');
    return new XRateLimitedError(details, rate ? new Date(rate.reset * 1000) : fallbackResetAt, true);
  }
  if (status === 409 && endpoint === 'stream_connect') return new XStreamNoRulesError(details, message);
  if (status === 401 || status === 403) return new XAuthError(details, message);
  if (status >= 500) return new XUnavailableError(details, 'server_error', message);
  // An invalid-request problem lists each refused parameter as {parameters: {name: [values]}, message}.
  const problems: XProblem[] = entries.map((entry) => {
    const [parameter, values] = Object.entries(entry.parameters ?? {})[0] ?? [];
    const value = Array.isArray(values) ? values.map(String).join(',') : null;
    return { type: error.type ?? 'about:blank', title: error.title ?? null, detail: entry.message ?? null, resourceType: null, resourceId: null, parameter: parameter ?? null, value };
  });
  return new XInvalidRequestError(details, message, problems);
}

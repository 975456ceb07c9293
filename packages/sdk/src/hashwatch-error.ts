import type { ErrorCode } from './api-types';

// The gateway names the field first (`hashtag: Too small…`, `webhooks.0.url: Invalid URL`; apps/gateway's
// validate.ts); a word with spaces before the first ':' is prose, not a field.
const FIELD = /^([^\s:;]+):\s/u;
const INPUTS = new Set(['body', 'query', 'path']);

/**
 * The field an `invalid_request` message names, without a leading `body.`/`query.`/`path.`; undefined when the
 * message names none, or names the input as a whole (`body: not valid JSON`).
 */
export function fieldOf(message: string): string | undefined {
  const path = FIELD.exec(message)?.[1];
  if (path === undefined || INPUTS.has(path)) return undefined;
  const dot = path.indexOf('.');
  return dot > 0 && INPUTS.has(path.slice(0, dot)) ? path.slice(dot + 1) : path;
}

/** What the API answered instead of a 2xx (or status 0, code `network_error`, when no answer came). */
export class HashwatchError extends Error {
  override readonly name = 'HashwatchError';
  /** The HTTP status; 0 when the request got no answer. */
  readonly status: number;
  readonly code: ErrorCode | (string & {});
  /** The input field the API named (400 `invalid_request`), e.g. `hashtag` or `webhooks.0.url`. */
  readonly field: string | undefined;
  /** The answer's `Retry-After`, in seconds, when it had one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: { status: number; code: string; message: string; field?: string | undefined; retryAfterSeconds?: number | undefined; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** `Retry-After` as seconds (the API sends an integer); undefined when absent or not a number. */
export function retryAfterOf(headers: Headers): number | undefined {
  const value = headers.get('Retry-After');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/** The error of a non-2xx answer, from its `{error:{code,message}}` body (or its status when the body is not that). */
export function errorFromResponse(response: Response, body: unknown): HashwatchError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const code = typeof error?.code === 'string' ? error.code : `http_${response.status}`;
  const message = typeof error?.message === 'string' ? error.message : typeof body === 'string' && body !== '' ? body : `HTTP ${response.status}`;
  return new HashwatchError({
    status: response.status,
    code,
    message,
    field: code === 'invalid_request' ? fieldOf(message) : undefined,
    retryAfterSeconds: retryAfterOf(response.headers),
  });
}

/** A request that got no answer (DNS, refused connection, reset, CORS…). */
export function networkError(cause: unknown): HashwatchError {
  // Node's fetch says only "fetch failed"; the reason (ECONNREFUSED, a DNS failure…) is its cause.
  const inner = cause instanceof Error && cause.cause instanceof Error ? ` (${cause.cause.message})` : '';
  const reason = cause instanceof Error ? `${cause.message}${inner}` : String(cause);
  return new HashwatchError({ status: 0, code: 'network_error', message: `no answer from the Hashwatch API: ${reason}`, cause });
}

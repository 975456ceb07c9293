import { retryAfterOf } from './hashwatch-error';

/** The least wait before a retry: a reset already past (a clock ahead of the server's) must not retry in a tight loop. */
export const MIN_RATE_LIMIT_WAIT_MS = 1000;

/**
 * How long to wait before retrying a 429, in ms: `Retry-After` when present (it is relative, so a client clock
 * that is off does not matter, and it names the limit that refused, which may be tighter than the per-minute
 * window), else until `X-RateLimit-Reset` (Unix seconds) by this clock; at least {@link MIN_RATE_LIMIT_WAIT_MS};
 * undefined when the answer has neither.
 */
export function rateLimitWaitMs(headers: Headers, now: number = Date.now()): number | undefined {
  const retryAfter = retryAfterOf(headers);
  if (retryAfter !== undefined) return Math.max(MIN_RATE_LIMIT_WAIT_MS, retryAfter * 1000);
  const reset = Number(headers.get('X-RateLimit-Reset') ?? Number.NaN);
  if (!Number.isFinite(reset) || reset <= 0) return undefined;
  return Math.max(MIN_RATE_LIMIT_WAIT_MS, reset * 1000 - now);
}

/** Resolves after `ms`, or at once when `signal` aborts (rejecting with its reason). */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

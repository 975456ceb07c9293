/**
 * Exponential backoff with "equal jitter": half of base·2^(attempt−1) (capped at `maxMs`) is fixed, the other
 * half random, so retries of many deliveries that failed together spread out instead of returning at once.
 */
export function retryDelayMs(attempts: number, options: { baseMs: number; maxMs: number }, random: () => number = Math.random): number {
  const exponent = Math.max(0, attempts - 1);
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(exponent, 40));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

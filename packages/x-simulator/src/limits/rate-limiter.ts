import { DEFAULT_ENDPOINT_LIMITS, type EndpointLimit, type XEndpoint } from '../endpoints';

export type TokenKind = 'app' | 'user';

/** The numbers X reports in x-rate-limit-limit / -remaining / -reset (unix seconds). */
export interface LimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  reset: number;
}

interface Window {
  startedAt: number;
  count: number;
}

/** X's fixed windows: per endpoint, per token, `limit` requests each `windowSeconds`, counted from the first. */
export class SimRateLimiter {
  private readonly windows = new Map<string, Window>();
  private limits: Record<XEndpoint, EndpointLimit>;

  constructor(
    private windowSeconds: number,
    overrides: Partial<Record<XEndpoint, Partial<EndpointLimit>>>,
    private readonly now: () => number,
  ) {
    this.limits = { ...DEFAULT_ENDPOINT_LIMITS };
    for (const [endpoint, limit] of Object.entries(overrides) as [XEndpoint, Partial<EndpointLimit>][]) this.setLimit(endpoint, limit);
  }

  /** Counts one request and says whether it is within the limit. */
  consume(endpoint: XEndpoint, token: string, kind: TokenKind): LimitState {
    const window = this.window(endpoint, token);
    const limit = this.limits[endpoint][kind];
    const allowed = window.count < limit;
    if (allowed) window.count += 1;
    return { allowed, limit, remaining: Math.max(0, limit - window.count), reset: this.resetOf(window) };
  }

  /** The current window without counting a request. */
  peek(endpoint: XEndpoint, token: string, kind: TokenKind): LimitState {
    const window = this.window(endpoint, token);
    const limit = this.limits[endpoint][kind];
    return { allowed: window.count < limit, limit, remaining: Math.max(0, limit - window.count), reset: this.resetOf(window) };
  }

  setLimit(endpoint: XEndpoint, limit: Partial<EndpointLimit>): void {
    this.limits = { ...this.limits, [endpoint]: { ...this.limits[endpoint], ...limit } };
  }

  setWindowSeconds(seconds: number): void {
    this.windowSeconds = seconds;
    this.windows.clear();
  }

  limitsSnapshot(): { windowSeconds: number; limits: Record<XEndpoint, EndpointLimit> } {
    return { windowSeconds: this.windowSeconds, limits: this.limits };
  }

  /** Starts every window afresh. */
  resetWindows(): void {
    this.windows.clear();
  }

  private window(endpoint: XEndpoint, token: string): Window {
    const key = `${endpoint}\u0000${token}`;
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now >= window.startedAt + this.windowSeconds * 1000) {
      window = { startedAt: now, count: 0 };
      this.windows.set(key, window);
    }
    return window;
  }

  private resetOf(window: Window): number {
    return Math.ceil((window.startedAt + this.windowSeconds * 1000) / 1000);
  }
}

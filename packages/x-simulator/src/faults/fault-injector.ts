import type { XEndpoint } from '../endpoints';

// `unauthorized`: X's 401 for a bearer token it no longer accepts (revoked or regenerated in the developer
// console), answered before anything else as X does, without rate headers.
export const FAULT_KINDS = ['rate_limited', 'usage_capped', 'unavailable', 'internal_error', 'slow', 'unauthorized'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The next `remaining` requests to `endpoint` ('*' = any) fail this way instead of being served. */
export interface Fault {
  endpoint: XEndpoint | '*';
  kind: FaultKind;
  remaining: number;
  /**
   * For `slow`: how long the answer is held before being served normally. For `rate_limited`: how long the
   * 429 is held before it is sent, with the rate headers as they stood when the request arrived (a late 429
   * from a window that may have rolled meanwhile).
   */
  delayMs: number;
  /** For `rate_limited`: which 429 body to send; the simulator's default when absent. */
  body: 'code88' | 'problem' | undefined;
  /**
   * For `rate_limited`: the 429's `x-rate-limit-reset` is this many seconds after the request arrived instead
   * of the window's reset; the window itself is left as it is. Absent: the window's reset.
   */
  resetInSeconds: number | undefined;
}

/** Queued faults, taken first-in first-out; each request to a matching endpoint uses up one. */
export class FaultInjector {
  private faults: Fault[] = [];

  add(fault: Fault): void {
    if (fault.remaining > 0) this.faults.push({ ...fault });
  }

  take(endpoint: XEndpoint): Fault | undefined {
    const fault = this.faults.find((candidate) => candidate.endpoint === endpoint || candidate.endpoint === '*');
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults = this.faults.filter((candidate) => candidate !== fault);
    return { ...fault };
  }

  pending(): Fault[] {
    return this.faults.map((fault) => ({ ...fault }));
  }

  clear(): void {
    this.faults = [];
  }
}

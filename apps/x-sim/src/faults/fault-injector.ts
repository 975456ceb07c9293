import type { XEndpoint } from '../endpoints';

export const FAULT_KINDS = ['rate_limited', 'usage_capped', 'unavailable', 'internal_error', 'slow'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The next `remaining` requests to `endpoint` ('*' = any) fail this way instead of being served. */
export interface Fault {
  endpoint: XEndpoint | '*';
  kind: FaultKind;
  remaining: number;
  /** For `slow`: how long the answer is held before being served normally. */
  delayMs: number;
  /** For `rate_limited`: which 429 body to send; the simulator's default when absent. */
  body: 'code88' | 'problem' | undefined;
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

import type { XEndpoint } from '../endpoints';
import type { FaultKind } from '../faults/fault-injector';

export interface RequestLogEntry {
  at: string;
  endpoint: XEndpoint | null;
  method: string;
  path: string;
  query: Record<string, unknown>;
  status: number;
  tokenKind: 'app' | 'user' | 'none';
  /** Posts in `data` and `includes` of a 200: what X bills as post reads. */
  postsServed: number;
  usersServed: number;
  fault: FaultKind | null;
}

export interface EndpointCounters {
  requests: number;
  statuses: Record<string, number>;
  postsServed: number;
  usersServed: number;
}

const emptyCounters = (): EndpointCounters => ({ requests: 0, statuses: {}, postsServed: 0, usersServed: 0 });

/** Every request the simulated X received, so tests count upstream calls and billed reads. */
export class RequestLog {
  private log: RequestLogEntry[] = [];
  private readonly byEndpoint = new Map<string, EndpointCounters>();
  private totals = emptyCounters();

  constructor(private readonly capacity: number) {}

  record(entry: RequestLogEntry): void {
    if (this.capacity > 0) {
      this.log.push(entry);
      if (this.log.length > this.capacity) this.log.splice(0, this.log.length - this.capacity);
    }
    const key = entry.endpoint ?? 'unknown';
    let counters = this.byEndpoint.get(key);
    if (!counters) this.byEndpoint.set(key, (counters = emptyCounters()));
    for (const target of [counters, this.totals]) {
      target.requests += 1;
      target.statuses[entry.status] = (target.statuses[entry.status] ?? 0) + 1;
      target.postsServed += entry.postsServed;
      target.usersServed += entry.usersServed;
    }
  }

  /** Resources served outside a request's answer (posts delivered on an open stream): billed, not a request. */
  addServed(endpoint: XEndpoint, postsServed: number, usersServed: number): void {
    let counters = this.byEndpoint.get(endpoint);
    if (!counters) this.byEndpoint.set(endpoint, (counters = emptyCounters()));
    for (const target of [counters, this.totals]) {
      target.postsServed += postsServed;
      target.usersServed += usersServed;
    }
  }

  entries(filter: { endpoint?: string; limit?: number } = {}): RequestLogEntry[] {
    const matching = filter.endpoint ? this.log.filter((entry) => entry.endpoint === filter.endpoint) : this.log;
    return filter.limit === undefined ? [...matching] : matching.slice(-filter.limit);
  }

  counters(): { totals: EndpointCounters; endpoints: Record<string, EndpointCounters> } {
    return { totals: structuredClone(this.totals), endpoints: Object.fromEntries([...this.byEndpoint].map(([key, value]) => [key, structuredClone(value)])) };
  }

  /** Requests to one endpoint so far (0 when none). */
  requestCount(endpoint: XEndpoint): number {
    return this.byEndpoint.get(endpoint)?.requests ?? 0;
  }

  postsServed(): number {
    return this.totals.postsServed;
  }

  clear(): void {
    this.log = [];
    this.byEndpoint.clear();
    this.totals = emptyCounters();
  }
}

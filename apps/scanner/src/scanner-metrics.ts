/** Counters of one scanner process, exposed on /metrics in Prometheus text format. */
export class ScannerMetrics {
  private readonly counters = new Map<string, number>();

  private static readonly HELP: Record<string, string> = {
    scanner_ticks_total: 'Scan ticks run',
    scanner_sources_scanned_total: 'Sources whose scan succeeded',
    scanner_upstream_requests_total: 'Recent-search calls made, retries included',
    scanner_posts_read_total: 'Posts X billed for those calls',
    scanner_items_stored_total: 'Feed items stored (each with an alert job)',
    scanner_items_merged_total: 'Existing feed items that gained a source',
    scanner_items_over_quota_total: 'New feed items not stored because the alert quota was used up',
    scanner_pack_failures_total: 'Packed queries that failed (the cycle is redone)',
  };

  add(name: keyof (typeof ScannerMetrics)['HELP'] & string, value = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + value);
  }

  get(name: string): number {
    return this.counters.get(name) ?? 0;
  }

  render(): string {
    return Object.entries(ScannerMetrics.HELP)
      .map(([name, help]) => `# HELP ${name} ${help}\n# TYPE ${name} counter\n${name} ${this.get(name)}\n`)
      .join('');
  }
}

type Labels = Record<string, string>;

interface Family {
  help: string;
  type: 'counter' | 'gauge';
  values: Map<string, number>;
}

function labelText(labels: Labels | undefined): string {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return '';
  return `{${entries.map(([key, value]) => `${key}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/** The poller's counters and gauges, rendered in Prometheus text format for GET /metrics. */
export class PollerMetrics {
  private readonly families = new Map<string, Family>();

  constructor() {
    this.define('hashwatch_engagement_cycles_total', 'counter', 'Refresh cycles run, by result.');
    this.define('hashwatch_engagement_cycle_seconds', 'gauge', 'Duration of the last refresh cycle.');
    this.define('hashwatch_engagement_posts_refreshed_total', 'counter', 'Tracked posts whose counts were read from X.');
    this.define('hashwatch_engagement_posts_changed_total', 'counter', 'Refreshed posts whose counts changed.');
    this.define('hashwatch_engagement_posts_recomputed_total', 'counter', 'Refreshed posts that went through the full recompute (the others were only rescheduled).');
    this.define('hashwatch_engagement_upstream_calls_total', 'counter', 'Calls to X, by endpoint.');
    this.define('hashwatch_engagement_new_engagers_total', 'counter', 'Accounts seen engaging for the first time, by kind.');
    this.define('hashwatch_engagement_items_total', 'counter', 'Engagement feed items stored, by kind.');
    this.define('hashwatch_engagement_dropped_for_quota_total', 'counter', 'Engagement items not stored because the alert quota was used up.');
    this.define('hashwatch_engagement_held_back_total', 'counter', 'Times X refused for now (rate limit, usage cap), by endpoint.');
  }

  private define(name: string, type: Family['type'], help: string): void {
    this.families.set(name, { help, type, values: new Map() });
  }

  inc(name: string, labels?: Labels, by = 1): void {
    if (by === 0) return;
    const family = this.families.get(name);
    if (!family) throw new Error(`unknown metric ${name}`);
    const key = labelText(labels);
    family.values.set(key, (family.values.get(key) ?? 0) + by);
  }

  set(name: string, value: number, labels?: Labels): void {
    const family = this.families.get(name);
    if (!family) throw new Error(`unknown metric ${name}`);
    family.values.set(labelText(labels), value);
  }

  render(): string {
    const lines: string[] = [];
    for (const [name, family] of this.families) {
      lines.push(`# HELP ${name} ${family.help}`, `# TYPE ${name} ${family.type}`);
      for (const [labels, value] of family.values) lines.push(`${name}${labels} ${value}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

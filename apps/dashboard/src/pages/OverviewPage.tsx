import { useAccountTracks, useMe, useTracks, useUsage } from '../api/queries';
import { AlertsChart } from '../components/AlertsChart';
import { LatencyFigures } from '../components/LatencyFigures';
import { NoticesPanel } from '../components/NoticesPanel';
import { ErrorNote, Loading } from '../components/Status';
import { UpstreamCost } from '../components/UpstreamCost';
import { UsageMeter } from '../components/UsageMeter';
import { sourceHealth, type Health, type ScannedSource } from './source-health';
import { formatDay } from '../format';

const MARK: Record<Health['state'], string> = { ok: '✓ Scanning', waiting: '… Waiting', stale: '⚠ Not scanned', failing: '✕ Failing' };


function HealthTable({ sources, scanInterval }: { sources: (ScannedSource & { id: string; name: string })[]; scanInterval: number }) {
  const now = new Date();
  if (sources.length === 0) return <p className="empty">No sources yet. Add a hashtag under Tracks or an account under Accounts.</p>;
  return (
    <div className="overflow-auto">
      <table>
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">State</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {sources.map((source) => {
            const health = sourceHealth(source, scanInterval, now);
            return (
              <tr key={source.id} className={`health-${health.state}`}>
                <th scope="row">{source.name}</th>
                <td>
                  <span className={`mark mark-${health.state}`}>{MARK[health.state]}</span>
                </td>
                <td>{health.detail}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Plan, period, usage against every limit, open and recent notices, alerts per day, latency, upstream cost per source and each source's scan health, refreshed every 30 s. */
export function OverviewPage() {
  const me = useMe();
  const usage = useUsage();
  const tracks = useTracks();
  const accounts = useAccountTracks();
  // A failed refetch keeps the page it had; only a first read that failed replaces it.
  if (!me.data || !usage.data) return me.error || usage.error ? <ErrorNote error={me.error ?? usage.error} /> : <Loading what="your overview" />;
  const u = usage.data;
  const sources = [
    ...(tracks.data?.data ?? []).map((track) => ({ ...track, name: `#${track.hashtag}` })),
    ...(accounts.data?.data ?? []).map((account) => ({ ...account, name: `@${account.username}` })),
  ];
  return (
    <>
      <h1>Overview</h1>
      <section className="grid-2">
        <article>
          <header>Plan</header>
          <p className="big">{me.data.plan[0]?.toUpperCase() + me.data.plan.slice(1)}</p>
          <p>
            Subscription {me.data.subscription.status}, period {formatDay(u.period_start)} – {formatDay(u.period_end)}.
          </p>
          <p>
            Sources scanned every {me.data.scan_interval_seconds} s; engagement refreshed every {me.data.engagement_refresh_seconds} s.
          </p>
          <p>
            API: {me.data.rate_limit_per_minute} requests a minute. Two-factor authentication is {me.data.two_factor_enabled ? 'on' : 'off'}.
          </p>
          <p>
            {u.alerts_remaining.toLocaleString('en')} alerts left until {formatDay(u.period_end)}.
          </p>
        </article>
        <article>
          <header>Usage this period</header>
          <UsageMeter label="Alerts" used={u.alerts_used} limit={u.alerts_limit} unit="alerts" />
          <UsageMeter label="Hashtags" used={u.hashtags_used} limit={u.hashtags_limit} unit="hashtags" />
          <UsageMeter label="Accounts" used={u.accounts_used} limit={u.accounts_limit} unit="accounts" />
          <UsageMeter label="Engagement tracking" used={u.engagement_used} limit={u.engagement_limit} unit="sources" />
          <UsageMeter label="Webhooks" used={u.webhooks_used} limit={u.webhooks_limit} unit="webhooks" />
        </article>
      </section>
      <section aria-labelledby="notices-heading">
        <h2 id="notices-heading">Notices</h2>
        <NoticesPanel />
      </section>
      <section>
        <h2>Alerts per day</h2>
        <AlertsChart days={u.alerts_per_day} periodStart={u.period_start} periodEnd={u.period_end} />
      </section>
      <section>
        <h2>Latency this period</h2>
        <LatencyFigures latency={u.latency} />
      </section>
      <section>
        <h2>Upstream cost per source</h2>
        <UpstreamCost upstream={u.upstream} />
      </section>
      <section>
        <h2>Scan health</h2>
        {tracks.isPending || accounts.isPending ? <Loading what="your sources" /> : <HealthTable sources={sources} scanInterval={me.data.scan_interval_seconds} />}
      </section>
    </>
  );
}

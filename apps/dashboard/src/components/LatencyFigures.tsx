import type { Schemas } from '../api/client';

type Latency = Schemas['UsageLatency'];

/** A delay as people read it: "850 ms", "2.4 s", "3.5 min"; a dash when there is no sample. */
export function formatDelay(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** The period's p50 and p95 of post → detected and detected → delivered, from GET /usage. */
export function LatencyFigures({ latency }: { latency: Latency }) {
  const rows = [
    { name: 'Posted → detected', p50: latency.detect_p50_ms, p95: latency.detect_p95_ms },
    { name: 'Detected → delivered', p50: latency.deliver_p50_ms, p95: latency.deliver_p95_ms },
  ];
  return (
    <div className="overflow-auto">
      <table>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Median</th>
            <th scope="col">95th percentile</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.name}>
              <th scope="row">{row.name}</th>
              <td>{formatDelay(row.p50)}</td>
              <td>{formatDelay(row.p95)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="note">
        Over this period’s most recent 10,000 alerts. A dash: nothing to measure yet. X gives post times to the second, so detection can read up to 1 s
        long.
      </p>
    </div>
  );
}

import type { Schemas } from '../api/client';

type Upstream = Schemas['Usage']['upstream'];

/** A share of X reads or requests: whole numbers as they are, fractions to two decimals. */
function formatShare(value: number): string {
  return value.toLocaleString('en', { maximumFractionDigits: 2 });
}

/**
 * The period's upstream (X API) cost: posts read and requests in total, then per source, most read first, with
 * each source's share of the reads. Sources no longer tracked stay listed: their cost was real.
 */
export function UpstreamCost({ upstream }: { upstream: Upstream }) {
  return (
    <>
      <p>
        {formatShare(upstream.reads)} X posts read and {formatShare(upstream.requests)} search requests on your behalf this period. A search
        serves many sources at once: what X answered is split evenly across its sources, then across the accounts tracking each.
      </p>
      {upstream.by_source.length === 0 ? (
        <p className="empty">No upstream reads yet this period.</p>
      ) : (
        <div className="overflow-auto">
          <table>
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Posts read</th>
                <th scope="col">Share of reads</th>
                <th scope="col">Requests</th>
              </tr>
            </thead>
            <tbody>
              {upstream.by_source.map((row) => (
                <tr key={row.source}>
                  <th scope="row">{row.source}</th>
                  <td>{formatShare(row.reads)}</td>
                  <td>{upstream.reads > 0 ? `${Math.round((row.reads / upstream.reads) * 100)} %` : '—'}</td>
                  <td>{formatShare(row.requests)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

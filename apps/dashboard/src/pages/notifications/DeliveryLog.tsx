import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type Schemas } from '../../api/client';
import { describeError } from '../../api/errors';
import { SelectField } from '../../components/Field';
import { Empty, ErrorNote, Loading } from '../../components/Status';
import { formatTime } from '../../format';

type Status = Schemas['Delivery']['status'];

const STATES = [
  ['', 'Every delivery'],
  ['failed', 'Failed'],
  ['pending', 'Pending'],
  ['delivered', 'Delivered'],
  ['skipped', 'Skipped (late, chat platforms)'],
] as const;


function RetryButton({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const retry = useMutation({
    mutationFn: () => api.post('/v1/notifications/deliveries/{id}/retry', { params: { path: { id } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['deliveries'] }),
  });
  return (
    <>
      <button type="button" className="small" aria-busy={retry.isPending} disabled={retry.isPending || retry.isSuccess} onClick={() => retry.mutate()}>
        Retry
      </button>
      {retry.error ? <span role="alert">{describeError(retry.error)}</span> : null}
    </>
  );
}

/** Every delivery, newest first, filterable by state, older pages on demand, failed ones retried from here. */
export function DeliveryLog({ channelName }: { channelName: (id: string) => string }) {
  const [status, setStatus] = useState<'' | Status>('');
  const log = useInfiniteQuery({
    queryKey: ['deliveries', status],
    queryFn: ({ pageParam }) =>
      api.get('/v1/notifications/deliveries', { params: { query: { limit: 50, ...(status ? { status } : {}), ...(pageParam ? { cursor: pageParam } : {}) } } }),
    initialPageParam: '',
    getNextPageParam: (page) => page.next_cursor ?? undefined,
    refetchInterval: 10_000,
  });
  const rows = log.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <section>
      <h2>Delivery log</h2>
      <SelectField label="Show" value={status} options={STATES} onChange={(event) => setStatus(event.currentTarget.value as '' | Status)} />
      {log.error ? <ErrorNote error={log.error} /> : log.isPending ? <Loading what="deliveries" /> : rows.length === 0 ? (
        <Empty>No deliveries{status ? ` in this state` : ' yet'}.</Empty>
      ) : (
        <div className="overflow-auto">
          <table>
            <thead>
              <tr>
                <th scope="col">Queued</th>
                <th scope="col">Channel</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Latency</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id}>
                  <td>{formatTime(row.created_at, 'short')}</td>
                  <td>{channelName(row.channel_id)}</td>
                  <td className={`delivery-${row.status}`}>
                    {row.status}
                    {row.late ? ' (late)' : ''}
                  </td>
                  <td>{row.attempts}</td>
                  <td>{row.last_error ?? (row.last_status ? `HTTP ${row.last_status}` : '—')}</td>
                  <td>{row.latency_ms === null ? '—' : `${(row.latency_ms / 1000).toFixed(1)} s`}</td>
                  <td>{row.status === 'failed' ? <RetryButton id={row.id} /> : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.hasNextPage ? (
        <button type="button" className="secondary" aria-busy={log.isFetchingNextPage} disabled={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>
          Load older deliveries
        </button>
      ) : null}
    </section>
  );
}

import type { Schemas } from '../api/client';
import { useOpenNotices, useResolvedNotices } from '../api/queries';
import { formatTime } from '../format';
import { ErrorNote, Loading } from './Status';

type Notice = Schemas['Notice'];

const KIND_LABELS: Record<Notice['kind'], string> = {
  source_silent: 'Source silent',
  source_failing: 'Source failing',
  channel_failing: 'Channel failing',
  channel_disabled: 'Channel disabled',
  quota_warning: 'Alert quota at 80 %',
  quota_exhausted: 'Alert quota used up',
};

/** What a notice is about, as the rest of the dashboard names it. */
function subjectOf(notice: Notice): string {
  if (notice.source) return notice.source;
  if (notice.channel_id === 'bot') return 'Telegram bot';
  if (notice.channel_id) return `Webhook ${notice.channel_id}`;
  return 'Account';
}

function NoticeTable({ notices, resolved }: { notices: Notice[]; resolved: boolean }) {
  return (
    <div className="overflow-auto">
      <table>
        <thead>
          <tr>
            <th scope="col">Notice</th>
            <th scope="col">About</th>
            <th scope="col">Message</th>
            <th scope="col">{resolved ? 'Resolved' : 'Since'}</th>
          </tr>
        </thead>
        <tbody>
          {notices.map((notice) => (
            <tr key={notice.id} className={resolved ? 'notice-resolved' : 'notice-open'}>
              <th scope="row">
                <span className={`mark ${resolved ? 'mark-ok' : 'mark-stale'}`}>{resolved ? '✓' : '⚠'}</span> {KIND_LABELS[notice.kind]}
              </th>
              <td>{subjectOf(notice)}</td>
              <td>{notice.message}</td>
              <td>
                {resolved && notice.resolved_at ? (
                  <>
                    <time dateTime={notice.resolved_at}>{formatTime(notice.resolved_at)}</time>
                    <br />
                    <small>
                      opened <time dateTime={notice.opened_at}>{formatTime(notice.opened_at)}</time>
                    </small>
                  </>
                ) : (
                  <time dateTime={notice.opened_at}>{formatTime(notice.opened_at)}</time>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The overview's notices: what Hashwatch noticed about the account's own monitoring (GET /v1/notices), open ones
 * first with when they started, then the last few resolved.
 */
export function NoticesPanel() {
  const open = useOpenNotices();
  const resolved = useResolvedNotices();
  if (!open.data) return open.error ? <ErrorNote error={open.error} /> : <Loading what="your notices" />;
  return (
    <>
      {open.data.data.length === 0 ? (
        <p className="empty">No open notices: every source is scanning and every channel is taking messages.</p>
      ) : (
        <NoticeTable notices={open.data.data} resolved={false} />
      )}
      {resolved.data && resolved.data.data.length > 0 ? (
        <>
          <h3>Recently resolved</h3>
          <NoticeTable notices={resolved.data.data} resolved />
        </>
      ) : null}
    </>
  );
}

import type pg from 'pg';
import { keysetAfter, keysetPage } from '../../http/keyset-page';
import { iso } from '../../http/time';
import type { NoticeCursor, NoticeCursorScope } from './notice-cursor';
import type { ListNoticesQuery, NoticeBody, NoticeListBody } from './notices.schema';

interface NoticeRow {
  id: string;
  kind: NoticeBody['kind'];
  source: string | null;
  channel_id: string | null;
  channel_kind: 'webhook' | 'bot' | null;
  message: string;
  opened_at: Date;
  opened_at_us: string;
  resolved_at: Date | null;
}

// opened_at_us: the exact stored instant (EXTRACT gives a numeric, so no microsecond is lost) for the cursor.
const SELECT = `SELECT n.id, n.kind, n.source, n.channel_id, c.kind::text AS channel_kind, n.message, n.opened_at,
       (EXTRACT(EPOCH FROM n.opened_at) * 1000000)::bigint::text AS opened_at_us, n.resolved_at
  FROM notices n
  LEFT JOIN notification_channels c ON c.id = n.channel_id`;

function toNotice(row: NoticeRow): NoticeBody {
  return {
    id: row.id,
    kind: row.kind,
    state: row.resolved_at === null ? 'open' : 'resolved',
    source: row.source,
    // The bot channel's row id is internal: clients name it `bot`, as everywhere else in the API.
    channel_id: row.channel_kind === 'bot' ? 'bot' : row.channel_id,
    message: row.message,
    opened_at: iso(row.opened_at),
    resolved_at: iso(row.resolved_at),
  };
}

/**
 * One page of the account's notices, newest first by (opened_at, id), by keyset on the index
 * notices(user_id, opened_at DESC, id DESC). One more row than asked tells whether a next page exists.
 */
export async function listNotices(pool: pg.Pool, cursors: NoticeCursor, userId: string, query: ListNoticesQuery): Promise<NoticeListBody> {
  const scope: NoticeCursorScope = { userId, state: query.state ?? null };
  const after = query.cursor === undefined ? null : cursors.decode(query.cursor, scope);
  const values: unknown[] = [userId];
  const param = (value: unknown) => `$${values.push(value)}`;
  const where = ['n.user_id = $1'];
  if (scope.state === 'open') where.push('n.resolved_at IS NULL');
  else if (scope.state === 'resolved') where.push('n.resolved_at IS NOT NULL');
  if (after) where.push(keysetAfter({ at: 'n.opened_at', id: 'n.id' }, after, param));
  const { rows } = await pool.query<NoticeRow>(
    `${SELECT} WHERE ${where.join(' AND ')} ORDER BY n.opened_at DESC, n.id DESC LIMIT ${param(query.limit + 1)}`,
    values,
  );
  return keysetPage(rows, query.limit, toNotice, (last) => cursors.encode({ micros: last.opened_at_us, id: last.id }, scope));
}

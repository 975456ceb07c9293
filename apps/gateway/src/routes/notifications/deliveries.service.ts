import type pg from 'pg';
import { transaction } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import { writeNumberedOutbox } from '@hashwatch/outbox';
import { jobId } from '@hashwatch/queues';
import { keysetAfter, keysetPage } from '../../http/keyset-page';
import { iso } from '../../http/time';
import type { DeliveryCursor, DeliveryCursorScope } from './delivery-cursor';
import type { DeliveryBody, DeliveryListBody, ListDeliveriesQuery } from './deliveries.schema';

interface DeliveryRow {
  id: string;
  channel_id: string;
  channel_kind: 'webhook' | 'bot';
  feed_item_id: string;
  status: DeliveryBody['status'];
  attempts: number;
  last_error: string | null;
  last_status: number | null;
  late: boolean;
  created_at: Date;
  created_at_us: string;
  delivered_at: Date | null;
  next_attempt_at: Date | null;
  latency_ms: number | null;
}

// created_at_us: the exact stored instant (EXTRACT gives a numeric, so no microsecond is lost) for the cursor.
const SELECT = `SELECT d.id, d.channel_id, c.kind AS channel_kind, d.feed_item_id, d.status, d.attempts, d.last_error, d.last_status, d.late,
       d.created_at, (EXTRACT(EPOCH FROM d.created_at) * 1000000)::bigint::text AS created_at_us, d.delivered_at, d.next_attempt_at,
       round(EXTRACT(EPOCH FROM (d.delivered_at - f.detected_at)) * 1000)::float8 AS latency_ms
  FROM deliveries d
  JOIN notification_channels c ON c.id = d.channel_id
  JOIN feed_items f ON f.id = d.feed_item_id`;

function toDelivery(row: DeliveryRow): DeliveryBody {
  return {
    id: row.id,
    // The bot channel's row id is internal: clients name it `bot`, as in the filter and POST /notifications/test.
    channel_id: row.channel_kind === 'bot' ? 'bot' : row.channel_id,
    feed_item_id: row.feed_item_id,
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    last_status: row.last_status,
    late: row.late,
    created_at: iso(row.created_at),
    delivered_at: iso(row.delivered_at),
    latency_ms: row.latency_ms,
    next_attempt_at: iso(row.next_attempt_at),
  };
}

/**
 * One page of the account's delivery log, newest first by (created_at, id), by keyset on the index
 * deliveries(user_id, created_at DESC, id DESC). One more row than asked tells whether a next page exists.
 */
export async function listDeliveries(pool: pg.Pool, cursors: DeliveryCursor, userId: string, query: ListDeliveriesQuery): Promise<DeliveryListBody> {
  const scope: DeliveryCursorScope = { userId, status: query.status ?? null, channel: query.channel ?? null, feedItem: query.feed_item ?? null };
  const after = query.cursor === undefined ? null : cursors.decode(query.cursor, scope);
  const values: unknown[] = [userId];
  const param = (value: unknown) => `$${values.push(value)}`;
  const where = ['d.user_id = $1'];
  if (scope.status) where.push(`d.status = ${param(scope.status)}::delivery_status`);
  if (scope.channel === 'bot') where.push(`c.kind = 'bot'`);
  else if (scope.channel) where.push(`d.channel_id = ${param(scope.channel)}`);
  if (scope.feedItem) where.push(`d.feed_item_id = ${param(scope.feedItem)}`);
  if (after) where.push(keysetAfter({ at: 'd.created_at', id: 'd.id' }, after, param));
  const { rows } = await pool.query<DeliveryRow>(
    `${SELECT} WHERE ${where.join(' AND ')} ORDER BY d.created_at DESC, d.id DESC LIMIT ${param(query.limit + 1)}`,
    values,
  );
  return keysetPage(rows, query.limit, toDelivery, (last) => cursors.encode({ micros: last.created_at_us, id: last.id }, scope));
}

/**
 * Puts a failed delivery back to pending, due now, and writes the outbox row the notifier's relay turns into
 * a `deliver-alert` job, in one transaction: the retry is queued exactly when it is recorded. The job id
 * `deliver-<id>-retry-<n>` takes n from the outbox row's own number, so every retry is a new job (BullMQ keeps
 * finished jobs for a day, and a reused id would be silently ignored) while the relay, moving one row twice,
 * still adds it once.
 */
export async function retryDelivery(pool: pg.Pool, userId: string, id: string, now: Date): Promise<DeliveryBody> {
  return transaction(pool, async (client) => {
    const { rows: found } = await client.query<{ status: DeliveryBody['status']; kind: 'webhook' | 'bot'; channel_id: string; enabled: boolean }>(
      `SELECT d.status, c.kind, c.id AS channel_id, c.enabled
         FROM deliveries d JOIN notification_channels c ON c.id = d.channel_id
        WHERE d.id = $1 AND d.user_id = $2 FOR UPDATE OF d`,
      [id, userId],
    );
    const delivery = found[0];
    if (!delivery) throw new AppError('not_found', `no delivery ${id}`);
    if (delivery.status !== 'failed') {
      throw new AppError('invalid_request', `delivery ${id} is not failed (it is ${delivery.status}); only failed deliveries can be retried`);
    }
    if (!delivery.enabled) {
      const channel = delivery.kind === 'bot' ? 'the bot channel' : `webhook ${delivery.channel_id}`;
      throw new AppError('invalid_request', `delivery ${id} goes to ${channel}, which is disabled; re-enable it with PUT /notifications, then retry`);
    }
    await client.query(`UPDATE deliveries SET status = 'pending', next_attempt_at = $2, updated_at = $2 WHERE id = $1`, [id, now]);
    // Job id deliver-<id>-retry-<outbox row>: every retry a new job.
    await writeNumberedOutbox(client, [{ queue: 'alert-deliveries', name: 'deliver-alert', jobIdPrefix: `${jobId('deliver', id, 'retry')}-`, payload: { deliveryId: id } }]);
    const { rows } = await client.query<DeliveryRow>(`${SELECT} WHERE d.id = $1`, [id]);
    return toDelivery(rows[0] as DeliveryRow);
  });
}

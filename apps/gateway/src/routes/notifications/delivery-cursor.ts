import { z } from 'zod';
import { signedCursor } from '../../http/signed-cursor';

/** Where a page ends: the last delivery's created_at in microseconds since the epoch (as text) and its id. */
export interface DeliveryPosition {
  createdAtMicros: string;
  id: string;
}

/** What a cursor is valid for: the account and the filters (not the page size). */
export interface DeliveryCursorScope {
  userId: string;
  status: string | null;
  channel: string | null;
  feedItem: string | null;
}

export interface DeliveryCursor {
  encode(position: DeliveryPosition, scope: DeliveryCursorScope): string;
  /** The position, or 400 invalid_request `cursor: ...` for a malformed, modified or foreign cursor. */
  decode(cursor: string, scope: DeliveryCursorScope): DeliveryPosition;
}

const positionSchema = z.strictObject({ t: z.string().regex(/^\d{1,20}$/), id: z.string().min(1).max(100) });

/**
 * Delivery-log cursors, signed under the purpose "deliveries-cursor". Microseconds, not milliseconds:
 * created_at is stored to the microsecond, and a rounded position would skip or repeat rows.
 */
export function deliveryCursor(secretsKey: string): DeliveryCursor {
  const cursor = signedCursor(secretsKey, 'deliveries-cursor', positionSchema, 'repeat the status, channel and feed_item of the request that returned it');
  // feed_item only when given: cursors handed out before that filter existed stay valid.
  const scopeOf = (scope: DeliveryCursorScope) => [scope.userId, scope.status, scope.channel, ...(scope.feedItem === null ? [] : [scope.feedItem])];
  return {
    encode: (position, scope) => cursor.encode({ t: position.createdAtMicros, id: position.id }, scopeOf(scope)),
    decode(value, scope) {
      const position = cursor.decode(value, scopeOf(scope));
      return { createdAtMicros: position.t, id: position.id };
    },
  };
}

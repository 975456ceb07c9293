import { keysetCursor, type KeysetCursor } from '../../http/keyset-page';

/** What a cursor is valid for: the account and the filters (not the page size). */
export interface DeliveryCursorScope {
  userId: string;
  status: string | null;
  channel: string | null;
  feedItem: string | null;
}

export type DeliveryCursor = KeysetCursor<DeliveryCursorScope>;

/** Delivery-log cursors on (created_at, id), signed under the purpose "deliveries-cursor". */
export function deliveryCursor(secretsKey: string): DeliveryCursor {
  return keysetCursor(
    secretsKey,
    'deliveries-cursor',
    'repeat the status, channel and feed_item of the request that returned it',
    // feed_item only when given: cursors handed out before that filter existed stay valid.
    (scope: DeliveryCursorScope) => [scope.userId, scope.status, scope.channel, ...(scope.feedItem === null ? [] : [scope.feedItem])],
  );
}

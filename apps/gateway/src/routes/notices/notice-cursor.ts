import { keysetCursor, type KeysetCursor } from '../../http/keyset-page';

/** What a cursor is valid for: the account and the filter (not the page size). */
export interface NoticeCursorScope {
  userId: string;
  state: string | null;
}

export type NoticeCursor = KeysetCursor<NoticeCursorScope>;

/** Notice-list cursors on (opened_at, id), signed under the purpose "notices-cursor" like the feed's and the delivery log's. */
export function noticeCursor(secretsKey: string): NoticeCursor {
  return keysetCursor(secretsKey, 'notices-cursor', 'repeat the state of the request that returned it', (scope: NoticeCursorScope) => [scope.userId, scope.state]);
}

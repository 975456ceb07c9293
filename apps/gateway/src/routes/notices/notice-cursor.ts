import { z } from 'zod';
import { signedCursor } from '../../http/signed-cursor';

/** Where a page ends: the last notice's opened_at in microseconds since the epoch (as text) and its id. */
export interface NoticePosition {
  openedAtMicros: string;
  id: string;
}

/** What a cursor is valid for: the account and the filter (not the page size). */
export interface NoticeCursorScope {
  userId: string;
  state: string | null;
}

export interface NoticeCursor {
  encode(position: NoticePosition, scope: NoticeCursorScope): string;
  /** The position, or 400 invalid_request `cursor: ...` for a malformed, modified or foreign cursor. */
  decode(cursor: string, scope: NoticeCursorScope): NoticePosition;
}

const positionSchema = z.strictObject({ t: z.string().regex(/^\d{1,20}$/), id: z.string().min(1).max(100) });

/**
 * Notice-list cursors, signed under the purpose "notices-cursor" like the feed's and the delivery log's.
 * Microseconds, as opened_at is stored: a rounded position would skip or repeat notices.
 */
export function noticeCursor(secretsKey: string): NoticeCursor {
  const cursor = signedCursor(secretsKey, 'notices-cursor', positionSchema, 'repeat the state of the request that returned it');
  const scopeOf = (scope: NoticeCursorScope) => [scope.userId, scope.state];
  return {
    encode: (position, scope) => cursor.encode({ t: position.openedAtMicros, id: position.id }, scopeOf(scope)),
    decode(value, scope) {
      const position = cursor.decode(value, scopeOf(scope));
      return { openedAtMicros: position.t, id: position.id };
    },
  };
}

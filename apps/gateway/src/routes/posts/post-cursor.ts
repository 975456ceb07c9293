import { z } from 'zod';
import { signedCursor } from '../../http/signed-cursor';

/** Where a page ends: the last item's detected_at (ms) and id; the next page starts strictly after it. */
export interface FeedPosition {
  detectedAtMs: number;
  id: string;
}

/** What a cursor is valid for: the account and every filter that shapes the list (not the page size). */
export interface CursorScope {
  userId: string;
  hashtag: string | null;
  account: string | null;
  type: string | null;
  sinceMs: number | null;
}

export interface PostCursor {
  encode(position: FeedPosition, scope: CursorScope): string;
  /** The position, or 400 invalid_request `cursor: ...` for a malformed, modified or foreign cursor. */
  decode(cursor: string, scope: CursorScope): FeedPosition;
  /** The position a well-formed cursor claims, unverified (see SignedCursor.peek); undefined when malformed. */
  peek(cursor: string): FeedPosition | undefined;
  /** 400 invalid_request unless the cursor was signed for this scope (see SignedCursor.verify). */
  verify(cursor: string, scope: CursorScope): void;
}

const positionSchema = z.strictObject({ t: z.number().int().min(0).max(2 ** 48), id: z.string().min(1).max(100) });

/** Feed cursors, signed under the purpose "feed-cursor" and bound to the account and the filters. */
export function postCursor(secretsKey: string): PostCursor {
  const cursor = signedCursor(secretsKey, 'feed-cursor', positionSchema, 'repeat the hashtag, account, type and since of the request that returned it');
  const scopeOf = (scope: CursorScope) => [scope.userId, scope.hashtag, scope.account, scope.type, scope.sinceMs];
  return {
    encode: (position, scope) => cursor.encode({ t: position.detectedAtMs, id: position.id }, scopeOf(scope)),
    decode(value, scope) {
      const position = cursor.decode(value, scopeOf(scope));
      return { detectedAtMs: position.t, id: position.id };
    },
    peek(value) {
      const position = cursor.peek(value);
      return position && { detectedAtMs: position.t, id: position.id };
    },
    verify(value, scope) {
      cursor.verify(value, scopeOf(scope));
    },
  };
}

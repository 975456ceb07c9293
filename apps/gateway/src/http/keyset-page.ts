import { z } from 'zod';
import { signedCursor } from './signed-cursor';

/**
 * Lists paged newest first on a (timestamp, id) key, as the delivery log and the notices are: their signed cursor,
 * the condition for rows after a page's last one, and the page cut from one row more than asked (which tells
 * whether a next exists).
 */

/**
 * Where a page ends: the last row's key timestamp in microseconds since the epoch (as text: the column is stored to
 * the microsecond, and a rounded position would skip or repeat rows) and its id.
 */
export interface KeysetPosition {
  micros: string;
  id: string;
}

export interface KeysetCursor<Scope> {
  encode(position: KeysetPosition, scope: Scope): string;
  /** The position, or 400 invalid_request `cursor: ...` for a malformed, modified or foreign cursor. */
  decode(cursor: string, scope: Scope): KeysetPosition;
}

const positionSchema = z.strictObject({ t: z.string().regex(/^\d{1,20}$/), id: z.string().min(1).max(100) });

/**
 * A list's cursors, signed under `purpose` (see signedCursor) and bound to what `scopeOf` takes from the request
 * (the account and the filters, not the page size); `refilter` names what a caller must repeat.
 */
export function keysetCursor<Scope>(secretsKey: string, purpose: string, refilter: string, scopeOf: (scope: Scope) => readonly unknown[]): KeysetCursor<Scope> {
  const cursor = signedCursor(secretsKey, purpose, positionSchema, refilter);
  return {
    encode: (position, scope) => cursor.encode({ t: position.micros, id: position.id }, scopeOf(scope)),
    decode(value, scope) {
      const position = cursor.decode(value, scopeOf(scope));
      return { micros: position.t, id: position.id };
    },
  };
}

/** `(column, id) < (position, id)` for a position in microseconds since the epoch, its values added with `param`. */
export function keysetAfter(columns: { at: string; id: string }, after: KeysetPosition, param: (value: unknown) => string): string {
  return `(${columns.at}, ${columns.id}) < (timestamptz 'epoch' + ${param(after.micros)}::bigint * interval '1 microsecond', ${param(after.id)})`;
}

/** The page of `limit` rows out of `rows` (up to limit + 1), and the cursor after its last row when more follow. */
export function keysetPage<Row, Item>(rows: readonly Row[], limit: number, toItem: (row: Row) => Item, cursorAfter: (last: Row) => string): { data: Item[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { data: page.map(toItem), next_cursor: rows.length > limit && last ? cursorAfter(last) : null };
}

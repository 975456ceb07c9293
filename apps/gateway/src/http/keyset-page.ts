/**
 * Lists paged newest first on a (timestamp, id) key, as the delivery log and the notices are: the condition for
 * rows after a page's last one, and the page cut from one row more than asked (which tells whether a next exists).
 */

/** `(column, id) < (position, id)` for a position in microseconds since the epoch, its values added with `param`. */
export function keysetAfter(columns: { at: string; id: string }, after: { micros: string; id: string }, param: (value: unknown) => string): string {
  return `(${columns.at}, ${columns.id}) < (timestamptz 'epoch' + ${param(after.micros)}::bigint * interval '1 microsecond', ${param(after.id)})`;
}

/** The page of `limit` rows out of `rows` (up to limit + 1), and the cursor after its last row when more follow. */
export function keysetPage<Row, Item>(rows: readonly Row[], limit: number, toItem: (row: Row) => Item, cursorAfter: (last: Row) => string): { data: Item[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { data: page.map(toItem), next_cursor: rows.length > limit && last ? cursorAfter(last) : null };
}

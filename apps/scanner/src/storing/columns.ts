/** One field of every row, as a column for `unnest($n::type[])`. */
export function column<T, V>(rows: readonly T[], pick: (row: T) => V): V[] {
  return rows.map(pick);
}

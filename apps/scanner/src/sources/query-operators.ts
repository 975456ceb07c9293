import { SERVED_USER } from './served-user';

/**
 * The filters X can apply itself, and the operator each becomes. One goes into a source's query only when every
 * served tracker of the source sets it: X then sends only posts some tracker could keep, and each tracker's own
 * filters still decide (@hashwatch/post-filters), so an operator only ever saves posts read, never decides. X's
 * has:links also matches a post's own photo page, and is:verified every kind of verification: each is at least as
 * wide as the filter it stands for. Keywords and min_followers stay ours (no operator, or a query too long).
 */
export const FILTER_OPERATORS = [
  ['has_media', 'has:media'],
  ['has_links', 'has:links'],
  ['verified_only', 'is:verified'],
  ['exclude_quotes', '-is:quote'],
] as const;

/** SQL aggregate over the grouped trackers' `filters` (jsonb) column: the operators all of them ask for, in a fixed order. */
export function commonOperatorsSql(filters: string): string {
  const cases = FILTER_OPERATORS.map(([field, operator]) => `CASE WHEN bool_and(COALESCE((${filters}->>'${field}')::boolean, false)) THEN '${operator}' END`);
  return `array_remove(ARRAY[${cases.join(', ')}]::text[], NULL)`;
}

/**
 * SQL scalar subquery: the operators every served tracker of the source `key` (a `tag:` or `user:` key expression)
 * asks for now, read from the tracks themselves rather than the synced cursor.
 */
export function currentOperatorsSql(key: string): string {
  return `(SELECT ${commonOperatorsSql('f.filters')} FROM (
    SELECT t.filters FROM tracks t JOIN users u ON u.id = t.user_id
     WHERE ${key} LIKE 'tag:%' AND t.hashtag_norm = substr(${key}, 5) AND t.status = 'active' AND ${SERVED_USER}
    UNION ALL
    SELECT a.filters FROM account_tracks a JOIN users u ON u.id = a.user_id
     WHERE ${key} LIKE 'user:%' AND a.username_norm = substr(${key}, 6) AND a.status = 'active' AND ${SERVED_USER}) f)`;
}

/** SQL boolean: a served tracker of the source `key` (a key expression) asks for the handle's mentions now. */
export function currentMentionsSql(key: string): string {
  return `(${key} LIKE 'user:%' AND EXISTS (SELECT 1 FROM account_tracks a JOIN users u ON u.id = a.user_id
    WHERE a.username_norm = substr(${key}, 6) AND a.include_mentions AND a.status = 'active' AND ${SERVED_USER}))`;
}

/**
 * The alert quota's rows, as every feed writer (scanner, engagement poller) takes them: the current period's
 * `usage_periods` row of each account, locked in account order for the writer's transaction, so concurrent
 * writers of one account's feed take its quota one after the other and never overspend it. One text for all
 * writers keeps their lock order the same, so they cannot deadlock each other over it.
 */

/** Locks and returns the usage rows of the accounts `$1` (text[]) that have one for the current period. */
export const LOCK_USAGE = `
SELECT u.id AS user_id, u.alerts_limit, p.period_start::text AS period_start, p.alerts_used
  FROM users u JOIN usage_periods p ON p.user_id = u.id AND p.period_start = u.current_period_start
 WHERE u.id = ANY($1::text[])
 ORDER BY u.id
   FOR UPDATE OF p`;

/** Creates the current period's usage row of each account `$1` (text[]) that has none; lock them next. */
export const CREATE_USAGE = `
INSERT INTO usage_periods (user_id, period_start, period_end)
SELECT u.id, u.current_period_start, u.current_period_end FROM users u WHERE u.id = ANY($1::text[]) ORDER BY u.id
ON CONFLICT (user_id, period_start) DO NOTHING`;

/** A row of {@link LOCK_USAGE}. */
export interface UsageRow {
  user_id: string;
  alerts_limit: number;
  /** As text: microseconds survive the round trip back into the writer's update of the row. */
  period_start: string;
  alerts_used: number;
}

import type pg from 'pg';

/** The statement behind {@link nextDetectedAt}; `insertFeedItems` runs it as a CTE of its insert. */
export const TAKE_FEED_CLOCK = `
UPDATE feed_clock
   SET last = GREATEST(date_trunc('milliseconds', clock_timestamp()), last + interval '1 millisecond')
 WHERE id = 1
RETURNING last`;

/**
 * Hands out the `detected_at` of everything one transaction writes to the feed, from the single row of
 * `feed_clock`: the wall clock truncated to milliseconds, or 1 ms past the last value handed out when
 * the wall clock has not moved on (or went backwards).
 *
 * Why: the UPDATE takes the row lock and keeps it until the caller commits or rolls back, so feed writers
 * commit one after the other in detected_at order and no two transactions share a value. A reader's
 * snapshot then always holds a prefix of the feed ordered by detected_at, which is what makes
 * `GET /v1/posts?since=<newest detected_at seen>` lose nothing (CONTRACT section 4). Millisecond
 * resolution matches the API's timestamps, so a `since` taken from a response is exact.
 *
 * Call it inside the caller's transaction, as late as possible (it serialises every feed writer until
 * commit), and use the value for every feed row the transaction inserts. `insertFeedItems` does both.
 */
export async function nextDetectedAt(client: pg.PoolClient): Promise<Date> {
  const { rows } = await client.query<{ last: Date }>(TAKE_FEED_CLOCK);
  const row = rows[0];
  if (!row) throw new Error('feed_clock has no row 1: the database is not migrated');
  return row.last;
}

/**
 * Hands out the `detected_at` of everything one transaction writes to the feed, from the single row of
 * `feed_clock`: the wall clock truncated to milliseconds, or 1 ms past the last value handed out when
 * the wall clock has not moved on (or went backwards).
 *
 * Why: the UPDATE takes the row lock and keeps it until the caller commits or rolls back, so feed writers
 * commit one after the other in detected_at order and no two transactions share a value. A reader's
 * snapshot then always holds a prefix of the feed ordered by detected_at, which is what makes
 * `GET /v1/posts?since=<newest detected_at seen>` lose nothing: every item exactly once. Millisecond
 * resolution matches the API's timestamps, so a `since` taken from a response is exact.
 *
 * `insertFeedItems` runs it as a CTE of its insert, so the clock is taken as late as possible (it serialises
 * every feed writer until commit) and its value stamps every row of the batch.
 */
export const TAKE_FEED_CLOCK = `
UPDATE feed_clock
   SET last = GREATEST(date_trunc('milliseconds', clock_timestamp()), last + interval '1 millisecond')
 WHERE id = 1
RETURNING last`;

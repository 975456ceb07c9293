import type pg from 'pg';
import type { UsageBody } from './usage.schema';

/**
 * Items the latency figures are taken over: the period's most recent ones. It bounds the work of one GET /usage
 * whatever the period holds (about 80 ms on the bench machine for 10,000 items and their deliveries, cold or not
 * far off, against 2 to 3 s for 200,000 items read whole: docs/DECISIONS.md, "Catch-up after downtime and latency").
 */
export const LATENCY_SAMPLE_ITEMS = 10_000;

/**
 * One statement: the period's most recent items by the feed_items (user_id, detected_at DESC, id DESC) index, read in
 * its order and cut at the sample size (no sort, no scan of the rest of the period), then their deliveries by the
 * deliveries (feed_item_id) index. percentile_cont interpolates between samples; date_part gives double precision,
 * which sorts far faster than EXTRACT's numeric.
 *
 * - detect: detected_at − posted_at of each sampled item that has a posted_at (likes and retweets have none).
 *   posted_at is X's created_at, whole seconds, so a sample can read up to 1 s long; late items (caught up after
 *   an outage) count, since that is the delay the account saw.
 * - deliver: delivered_at − detected_at of each delivered delivery of the sampled items, one sample per channel (a
 *   digest's alerts share its delivered_at). Pending, failed and skipped deliveries have no delivered_at.
 */
const LATENCY = `
WITH items AS MATERIALIZED (
  SELECT f.id, f.detected_at, f.posted_at
    FROM feed_items f
   WHERE f.user_id = $1 AND f.detected_at >= $2 AND f.detected_at < $3
   ORDER BY f.detected_at DESC, f.id DESC
   LIMIT $4
)
SELECT
  (SELECT percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY date_part('epoch', i.detected_at - i.posted_at) * 1000)
     FROM items i WHERE i.posted_at IS NOT NULL) AS detect,
  (SELECT percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY date_part('epoch', d.delivered_at - i.detected_at) * 1000)
     FROM items i JOIN deliveries d ON d.feed_item_id = i.id
    WHERE d.status = 'delivered') AS deliver`;

const rounded = (value: number | undefined) => (value === undefined ? null : Math.round(value));

/**
 * p50 and p95 of detection and delivery delays over the period's most recent `sampleItems` items; each null when
 * there is no sample of it.
 */
export async function latencyOf(
  pool: pg.Pool,
  userId: string,
  period: { start: Date; end: Date },
  sampleItems = LATENCY_SAMPLE_ITEMS,
): Promise<UsageBody['latency']> {
  const { rows } = await pool.query<{ detect: number[] | null; deliver: number[] | null }>(LATENCY, [userId, period.start, period.end, sampleItems]);
  const detect = rows[0]?.detect ?? [];
  const deliver = rows[0]?.deliver ?? [];
  return {
    detect_p50_ms: rounded(detect[0]),
    detect_p95_ms: rounded(detect[1]),
    deliver_p50_ms: rounded(deliver[0]),
    deliver_p95_ms: rounded(deliver[1]),
  };
}

import type pg from 'pg';

/** p50 and p95 of detection and delivery delays, in whole milliseconds; each null when there is no sample of it. */
export interface Latency {
  detect_p50_ms: number | null;
  detect_p95_ms: number | null;
  deliver_p50_ms: number | null;
  deliver_p95_ms: number | null;
}

/** What the latency statement answers: percentile_cont's [p50, p95], null without a sample. */
export interface LatencyRow {
  detect: number[] | null;
  deliver: number[] | null;
}

/**
 * Items the latency figures are taken over: the period's most recent ones. It bounds the work of one GET /usage
 * whatever the period holds (about 80 ms on the bench machine for 10,000 items and their deliveries, cold or not
 * far off, against 2 to 3 s for 200,000 items read whole: docs/decisions/catch-up-and-latency.md).
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
   WHERE f.user_id = $1 AND f.detected_at >= $2::timestamptz AND f.detected_at < $3::timestamptz
   ORDER BY f.detected_at DESC, f.id DESC
   LIMIT $4::int
)
SELECT
  (SELECT percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY date_part('epoch', i.detected_at - i.posted_at) * 1000)
     FROM items i WHERE i.posted_at IS NOT NULL) AS detect,
  (SELECT percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY date_part('epoch', d.delivered_at - i.detected_at) * 1000)
     FROM items i JOIN deliveries d ON d.feed_item_id = i.id
    WHERE d.status = 'delivered') AS deliver`;

/**
 * The one statement of `latencyOf` and its values, for a client that runs SQL its own way (the admin CLI's Prisma
 * `$queryRawUnsafe`); `latencyFrom` reads its row. Figures over the period's most recent `sampleItems` items.
 */
export function latencyStatement(userId: string, period: { start: Date; end: Date }, sampleItems = LATENCY_SAMPLE_ITEMS): { text: string; values: unknown[] } {
  return { text: LATENCY, values: [userId, period.start, period.end, sampleItems] };
}

/** The figures of a row of `latencyStatement` (percentiles as numbers, or as text from a client that sends them so). */
export function latencyFrom(row: LatencyRow | undefined): Latency {
  const figure = (values: number[] | null | undefined, at: number) => {
    const value = values?.[at];
    return value === undefined || value === null ? null : Math.round(Number(value));
  };
  return {
    detect_p50_ms: figure(row?.detect, 0),
    detect_p95_ms: figure(row?.detect, 1),
    deliver_p50_ms: figure(row?.deliver, 0),
    deliver_p95_ms: figure(row?.deliver, 1),
  };
}

/**
 * p50 and p95 of detection and delivery delays of `userId` over the period's most recent `sampleItems` items
 * (GET /v1/usage, `npm run admin -- usage:report`); each null when there is no sample of it.
 */
export async function latencyOf(
  db: pg.Pool | pg.PoolClient,
  userId: string,
  period: { start: Date; end: Date },
  sampleItems = LATENCY_SAMPLE_ITEMS,
): Promise<Latency> {
  const { text, values } = latencyStatement(userId, period, sampleItems);
  const { rows } = await db.query<LatencyRow>(text, values);
  return latencyFrom(rows[0]);
}

import type pg from 'pg';
import type { UsageBody } from './usage.schema';

/**
 * The period's upstream cost of the account: `reads` is its upstream_posts_read (`postsRead`), `requests` and
 * `by_source` what the scanner metered per source (upstream_usage_by_source), sources the account no longer
 * tracks included, most read first. NUMERIC arrives as text.
 */
export async function upstreamUsage(pool: pg.Pool, userId: string, periodStart: Date, postsRead: number): Promise<UsageBody['upstream']> {
  const { rows } = await pool.query<{ source: string; reads: string; requests: string }>(
    `SELECT source, reads::text, requests::text FROM upstream_usage_by_source
      WHERE user_id = $1 AND period_start = $2 ORDER BY reads DESC, source`,
    [userId, periodStart],
  );
  const bySource = rows.map((row) => ({ source: row.source, reads: Number(row.reads), requests: Number(row.requests) }));
  // Summed in millionths, the scale they are stored in, so no float error creeps into the total.
  const requests = rows.reduce((sum, row) => sum + Math.round(Number(row.requests) * 1e6), 0) / 1e6;
  return { reads: postsRead, requests, by_source: bySource };
}

import { latencyFrom, latencyStatement, type LatencyRow } from '@hashwatch/feed';
import { z } from 'zod';
import { defineCommand } from '../command';
import { instantFlag } from '../flag-schemas';

interface ReportRow {
  account_id: string;
  email: string;
  period_start: Date;
  period_end: Date;
  /** NUMERIC as text, summed in the database. */
  reads: string;
  requests: string;
  by_source: { source: string; reads: string; requests: string }[];
}

// Per account, its period's upstream_posts_read and what the scanner metered per source, most read first, as
// GET /v1/usage answers them (apps/gateway/src/routes/me/upstream-usage.ts).
const BY_SOURCE = `
  COALESCE(p.upstream_posts_read, 0)::text AS reads,
  (SELECT COALESCE(sum(s.requests), 0)::text FROM upstream_usage_by_source s WHERE s.user_id = u.id AND s.period_start = p.period_start) AS requests,
  COALESCE((SELECT json_agg(json_build_object('source', s.source, 'reads', s.reads::text, 'requests', s.requests::text) ORDER BY s.reads DESC, s.source)
              FROM upstream_usage_by_source s WHERE s.user_id = u.id AND s.period_start = p.period_start), '[]'::json) AS by_source`;

/** Every account in its current period, those without usage yet at 0. */
const CURRENT_PERIODS = `
SELECT u.id AS account_id, u.email, u.current_period_start AS period_start, u.current_period_end AS period_end, ${BY_SOURCE}
  FROM users u LEFT JOIN usage_periods p ON p.user_id = u.id AND p.period_start = u.current_period_start
 ORDER BY u.id`;

/** The accounts that have a period starting at `$1`. */
const PERIODS_STARTING = `
SELECT u.id AS account_id, u.email, p.period_start, p.period_end, ${BY_SOURCE}
  FROM users u JOIN usage_periods p ON p.user_id = u.id AND p.period_start = $1::timestamptz
 ORDER BY u.id`;

export const usageReport = defineCommand({
  usage: 'usage:report [--period-start ISO]',
  description:
    "prints every account's latency (detection and delivery p50/p95) and upstream cost (X posts read, requests, per source) for its current " +
    'period, or for the periods starting at --period-start',
  flags: z.strictObject({ 'period-start': instantFlag.optional() }),
  async run(input, { prisma }) {
    const periodStart = input['period-start'];
    const rows = periodStart
      ? await prisma.$queryRawUnsafe<ReportRow[]>(PERIODS_STARTING, periodStart.toISOString())
      : await prisma.$queryRawUnsafe<ReportRow[]>(CURRENT_PERIODS);
    const data = [];
    // One account after another: the latency statement reads at most LATENCY_SAMPLE_ITEMS items of one account.
    for (const row of rows) {
      const { text, values } = latencyStatement(row.account_id, { start: row.period_start, end: row.period_end });
      const [latency] = await prisma.$queryRawUnsafe<LatencyRow[]>(text, ...values);
      data.push({
        account_id: row.account_id,
        email: row.email,
        period_start: row.period_start.toISOString(),
        period_end: row.period_end.toISOString(),
        // As GET /v1/usage answers it: the same statement (@hashwatch/feed), over the same period.
        latency: latencyFrom(latency),
        upstream: {
          reads: Number(row.reads),
          requests: Number(row.requests),
          by_source: row.by_source.map((share) => ({ source: share.source, reads: Number(share.reads), requests: Number(share.requests) })),
        },
      });
    }
    return { data };
  },
});

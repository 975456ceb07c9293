import type pg from 'pg';
import { AppError } from '@hashwatch/errors';
import { latencyOf } from '@hashwatch/feed';
import { iso } from '../../http/time';
import { upstreamUsage } from './upstream-usage';
import type { UsageBody } from './usage.schema';

interface UsageRow {
  current_period_start: Date;
  current_period_end: Date;
  alerts_limit: number;
  hashtags_limit: number;
  accounts_limit: number;
  engagement_limit: number;
  webhooks_limit: number;
  alerts_used: number;
  /** NUMERIC arrives as a string from pg. */
  upstream_posts_read: string;
  hashtags_used: number;
  accounts_used: number;
  engagement_used: number;
  webhooks_used: number;
}

/** The chart shows at most this many days: a period set far back by an operator still answers quickly. */
const MAX_CHART_DAYS = 92;

/**
 * Feed items stored per UTC day from the period's start (or the last {@link MAX_CHART_DAYS} days) up to today or the
 * period's end, days without any included as 0. One range scan of the (user_id, detected_at) index.
 */
async function alertsPerDay(pool: pg.Pool, userId: string, periodStart: Date, periodEnd: Date, now: Date): Promise<UsageBody['alerts_per_day']> {
  const until = new Date(Math.min(now.getTime(), periodEnd.getTime() - 1));
  const from = new Date(Math.max(periodStart.getTime(), until.getTime() - (MAX_CHART_DAYS - 1) * 86_400_000));
  if (until < from) return [];
  const { rows } = await pool.query<{ date: string; alerts: number }>(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS date, COALESCE(c.alerts, 0)::int AS alerts
       FROM generate_series(date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC'),
                            date_trunc('day', $3::timestamptz AT TIME ZONE 'UTC'), interval '1 day') AS d(day)
       LEFT JOIN (SELECT date_trunc('day', detected_at AT TIME ZONE 'UTC') AS day, count(*) AS alerts
                    FROM feed_items
                   WHERE user_id = $1 AND detected_at >= $4 AND detected_at < $5
                   GROUP BY 1) AS c ON c.day = d.day
      ORDER BY d.day`,
    [userId, from, until, periodStart, periodEnd],
  );
  return rows;
}

/** Usage of the current billing period: the usage_periods row keyed by the period's start (none yet: 0). */
export async function getUsage(pool: pg.Pool, userId: string, now: Date): Promise<UsageBody> {
  const { rows } = await pool.query<UsageRow>(
    `SELECT u.current_period_start, u.current_period_end, u.alerts_limit, u.hashtags_limit, u.accounts_limit,
            u.engagement_limit, u.webhooks_limit,
            COALESCE(p.alerts_used, 0) AS alerts_used,
            COALESCE(p.upstream_posts_read, 0)::text AS upstream_posts_read,
            (SELECT count(*) FROM tracks t WHERE t.user_id = u.id)::int AS hashtags_used,
            (SELECT count(*) FROM account_tracks a WHERE a.user_id = u.id)::int AS accounts_used,
            ((SELECT count(*) FROM tracks t WHERE t.user_id = u.id AND t.track_engagement)
              + (SELECT count(*) FROM account_tracks a WHERE a.user_id = u.id AND a.track_engagement))::int AS engagement_used,
            (SELECT count(*) FROM notification_channels c WHERE c.user_id = u.id AND c.kind = 'webhook')::int AS webhooks_used
       FROM users u
       LEFT JOIN usage_periods p ON p.user_id = u.id AND p.period_start = u.current_period_start
      WHERE u.id = $1`,
    [userId],
  );
  const row = rows[0];
  if (!row) throw new AppError('unauthorized', 'the account no longer exists');
  return {
    period_start: iso(row.current_period_start),
    period_end: iso(row.current_period_end),
    alerts_used: row.alerts_used,
    alerts_limit: row.alerts_limit,
    alerts_remaining: Math.max(0, row.alerts_limit - row.alerts_used),
    hashtags_used: row.hashtags_used,
    hashtags_limit: row.hashtags_limit,
    accounts_used: row.accounts_used,
    accounts_limit: row.accounts_limit,
    engagement_used: row.engagement_used,
    engagement_limit: row.engagement_limit,
    webhooks_used: row.webhooks_used,
    webhooks_limit: row.webhooks_limit,
    upstream_posts_read: Number(row.upstream_posts_read),
    alerts_per_day: await alertsPerDay(pool, userId, row.current_period_start, row.current_period_end, now),
    upstream: await upstreamUsage(pool, userId, row.current_period_start, Number(row.upstream_posts_read)),
    latency: await latencyOf(pool, userId, { start: row.current_period_start, end: row.current_period_end }),
  };
}

import type pg from 'pg';
import { AppError } from '@hashwatch/errors';
import { iso } from '../../http/time';
import type { MeBody } from './me.schema';

interface MeRow {
  id: string;
  email: string;
  plan_id: string;
  subscription_status: 'active' | 'past_due' | 'canceled';
  current_period_start: Date;
  current_period_end: Date;
  hashtags_limit: number;
  accounts_limit: number;
  engagement_limit: number;
  webhooks_limit: number;
  alerts_limit: number;
  scan_interval_seconds: number;
  engagement_refresh_seconds: number;
  rate_limit_per_minute: number;
  two_factor_enabled: boolean;
  created_at: Date;
}

export async function getMe(pool: pg.Pool, userId: string): Promise<MeBody> {
  const { rows } = await pool.query<MeRow>(
    `SELECT id, email, plan_id, subscription_status, current_period_start, current_period_end, hashtags_limit, accounts_limit,
            engagement_limit, webhooks_limit, alerts_limit, scan_interval_seconds, engagement_refresh_seconds,
            rate_limit_per_minute, totp_secret_enc IS NOT NULL AS two_factor_enabled, created_at
       FROM users WHERE id = $1`,
    [userId],
  );
  const row = rows[0];
  if (!row) throw new AppError('unauthorized', 'the account no longer exists');
  return {
    id: row.id,
    email: row.email,
    plan: row.plan_id,
    subscription: {
      status: row.subscription_status,
      current_period_start: iso(row.current_period_start),
      current_period_end: iso(row.current_period_end),
    },
    hashtags_limit: row.hashtags_limit,
    accounts_limit: row.accounts_limit,
    engagement_limit: row.engagement_limit,
    webhooks_limit: row.webhooks_limit,
    alerts_limit: row.alerts_limit,
    scan_interval_seconds: row.scan_interval_seconds,
    engagement_refresh_seconds: row.engagement_refresh_seconds,
    rate_limit_per_minute: row.rate_limit_per_minute,
    two_factor_enabled: row.two_factor_enabled,
    created_at: iso(row.created_at),
  };
}

import type { Plan } from '@hashwatch/db';
import type { LimitSnapshot } from '@hashwatch/plans';

/** Plan-derived values in snake_case, named as `GET /me` names them. */
export function renderLimits(limits: Omit<LimitSnapshot, 'planId'>) {
  return {
    hashtags_limit: limits.hashtagsLimit,
    accounts_limit: limits.accountsLimit,
    engagement_limit: limits.engagementLimit,
    webhooks_limit: limits.webhooksLimit,
    alerts_limit: limits.alertsLimit,
    scan_interval_seconds: limits.scanIntervalSeconds,
    engagement_refresh_seconds: limits.engagementRefreshSeconds,
    rate_limit_per_minute: limits.rateLimitPerMinute,
  };
}

/** A plan as `plan:set` and `plan:list` print it; retention is the plan's own (no account snapshot holds it). */
export function renderPlan(plan: Plan) {
  return { id: plan.id, name: plan.name, ...renderLimits(plan), retention_days: plan.retentionDays };
}

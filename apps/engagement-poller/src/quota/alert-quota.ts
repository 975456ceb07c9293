import type pg from 'pg';
import { CREATE_USAGE, LOCK_USAGE, type UsageRow } from '@hashwatch/feed';

const ADD_ALERTS = `
UPDATE usage_periods p
   SET alerts_used = p.alerts_used + v.alerts, updated_at = now()
  FROM unnest($1::text[], $2::timestamptz[], $3::int[]) AS v(user_id, period_start, alerts)
 WHERE p.user_id = v.user_id AND p.period_start = v.period_start`;

/** The alert quota of some accounts for one transaction: locked until it ends. */
export interface AlertQuota {
  /** Alerts the account may still store this period. */
  remaining(userId: string): number;
  /** Counts what was actually stored: one alert unit per stored feed item, of any type. */
  record(client: pg.PoolClient, storedPerUser: ReadonlyMap<string, number>): Promise<void>;
}

/**
 * Locks the current usage row of each account (in account order, creating missing ones) for the caller's
 * transaction, so that concurrent writers of one account's feed (scanner replicas, poller replicas) take
 * its quota one after the other and never overspend it.
 */
export async function lockAlertQuota(client: pg.PoolClient, userIds: readonly string[]): Promise<AlertQuota> {
  const sorted = [...new Set(userIds)].sort();
  const usage = new Map<string, UsageRow>();
  if (sorted.length > 0) {
    for (const row of (await client.query<UsageRow>(LOCK_USAGE, [sorted])).rows) usage.set(row.user_id, row);
    const missing = sorted.filter((id) => !usage.has(id));
    if (missing.length > 0) {
      await client.query(CREATE_USAGE, [missing]);
      for (const row of (await client.query<UsageRow>(LOCK_USAGE, [missing])).rows) usage.set(row.user_id, row);
    }
  }
  return {
    remaining(userId) {
      const row = usage.get(userId);
      return row ? Math.max(0, row.alerts_limit - row.alerts_used) : 0;
    },
    async record(tx, storedPerUser) {
      const rows = [...storedPerUser].filter(([userId, count]) => count > 0 && usage.has(userId));
      if (rows.length === 0) return;
      await tx.query(ADD_ALERTS, [rows.map(([userId]) => userId), rows.map(([userId]) => usage.get(userId)?.period_start), rows.map(([, count]) => count)]);
    },
  };
}

import type pg from 'pg';
import { newIds } from '@hashwatch/db';
import { noticeSql } from '@hashwatch/notices';

/**
 * The alert quota, as every feed writer (scanner, engagement poller) takes it: the current period's
 * `usage_periods` row of each account, locked in account order for the writer's transaction, so concurrent
 * writers of one account's feed take its quota one after the other and never overspend it. One lock text for
 * all writers keeps their lock order the same, so they cannot deadlock each other over it.
 */

/** Locks and returns the usage rows of the accounts `$1` (text[]) that have one for the current period. */
const LOCK_USAGE = `
SELECT u.id AS user_id, u.alerts_limit, p.period_start::text AS period_start, p.alerts_used
  FROM users u JOIN usage_periods p ON p.user_id = u.id AND p.period_start = u.current_period_start
 WHERE u.id = ANY($1::text[])
 ORDER BY u.id
   FOR UPDATE OF p`;

/** Creates the current period's usage row of each account `$1` (text[]) that has none; lock them next. */
const CREATE_USAGE = `
INSERT INTO usage_periods (user_id, period_start, period_end)
SELECT u.id, u.current_period_start, u.current_period_end FROM users u WHERE u.id = ANY($1::text[]) ORDER BY u.id
ON CONFLICT (user_id, period_start) DO NOTHING`;

/**
 * The subject of a quota notice: the period's start, in one spelling whatever the connection's TimeZone setting (the
 * notifier compares it with the account's current period to resolve the notice when the period resets).
 */
export const periodSubjectSql = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The share of the period's alerts at which `quota_warning` opens (CONTRACT 8: 80 %); `quota_exhausted` opens at 100 %. */
export const QUOTA_WARNING_SHARE = 0.8;


/**
 * Adds alerts stored and upstream posts read to locked usage rows, and opens the quota notices (CONTRACT 8) of
 * the accounts whose usage this update carries across 80 % or 100 % of their limit: set-based, from the update's
 * own RETURNING (old and new alerts_used), so a write that crosses nothing costs no extra statement and one that
 * crosses writes its notice (one per account, kind and period: the partial unique index on open notices) and the
 * notice's `deliver-notice` outbox job in the same statement, as @hashwatch/notices' raiseNotice does but without
 * its cooldown: a threshold is crossed at most once a period unless a larger limit resolved its notice, and a
 * crossing after that (the larger limit used up within the hour) must be told too.
 * Parameters: user ids, period starts, alerts, reads, then the ids the notices take if they open (two per row).
 * Common table expressions (`ctes`) for the writer to put first in its WITH; `text` is the outbox insert.
 */
const ADD_USAGE_CTES = `
usage_added AS (
  UPDATE usage_periods p
     SET alerts_used = p.alerts_used + v.alerts, upstream_posts_read = p.upstream_posts_read + v.reads, updated_at = now()
    FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::numeric[], $5::text[], $6::text[])
         AS v(user_id, period_start, alerts, reads, warning_id, exhausted_id)
   WHERE p.user_id = v.user_id AND p.period_start = v.period_start
RETURNING p.user_id, p.period_start, p.period_end, p.alerts_used - v.alerts AS used_before, p.alerts_used AS used_after,
          v.warning_id, v.exhausted_id),
quota_crossed AS (
  SELECT a.user_id, t.kind, t.id, ${periodSubjectSql('a.period_start')} AS subject,
         CASE t.kind
           WHEN 'quota_warning' THEN
             format('%s %% of this period''s alert quota is used: %s of %s alerts. At %s, new posts are no longer stored or alerted until the period resets on %s; a larger plan raises the quota at once.',
                    ${Math.round(QUOTA_WARNING_SHARE * 100)}, a.used_after, u.alerts_limit, u.alerts_limit, to_char(a.period_end AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"'))
           ELSE
             format('The alert quota of this period is used up: %s of %s alerts. New posts are not stored or alerted until the period resets on %s; a larger plan raises the quota at once.',
                    a.used_after, u.alerts_limit, to_char(a.period_end AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"'))
         END AS message
    FROM usage_added a
    JOIN users u ON u.id = a.user_id
   CROSS JOIN LATERAL (VALUES ('quota_warning', ceil(u.alerts_limit * ${QUOTA_WARNING_SHARE})::int, a.warning_id),
                              ('quota_exhausted', u.alerts_limit, a.exhausted_id)) AS t(kind, threshold, id)
   WHERE u.alerts_limit > 0 AND a.used_before < t.threshold AND a.used_after >= t.threshold),
quota_opened AS (
  INSERT INTO notices (id, user_id, kind, subject, message, opened_at)
  SELECT c.id, c.user_id, c.kind, c.subject, c.message, now() FROM quota_crossed c
  ON CONFLICT (user_id, kind, subject) WHERE resolved_at IS NULL DO NOTHING
  RETURNING id)`;

// The job @hashwatch/notices writes with a notice's opening.
const ADD_USAGE_TEXT = noticeSql.openedJobs('quota_opened');

/**
 * Adds each account's per-source share of upstream reads and requests ($7..$11), for usage rows locked by the same
 * transaction: concurrent writers of one account wait on its usage row first, so the upsert never races.
 */
const ADD_BY_SOURCE = `
INSERT INTO upstream_usage_by_source AS s (user_id, period_start, source, reads, requests)
SELECT v.user_id, v.period_start, v.source, v.reads, v.requests
  FROM unnest($7::text[], $8::timestamptz[], $9::text[], $10::numeric[], $11::numeric[]) AS v(user_id, period_start, source, reads, requests)
 ORDER BY 1, 3
ON CONFLICT (user_id, period_start, source)
DO UPDATE SET reads = s.reads + EXCLUDED.reads, requests = s.requests + EXCLUDED.requests, updated_at = now()`;

interface UsageRow {
  user_id: string;
  alerts_limit: number;
  /** As text: microseconds survive the round trip back into the writer's update of the row. */
  period_start: string;
  alerts_used: number;
}

/**
 * A statement sent in the same round trip as the lock, to spare the writer one: `ctes` are more common table
 * expressions after the lock's (whose one parameter is `$1`, so theirs start at `$2`), `select` the columns
 * it answers beside the locked rows.
 */
export interface AlongsideLock {
  ctes: string;
  select: string;
  values: unknown[];
}

/**
 * One statement for the caller to send: `text` after `WITH ctes` (the usage update and the quota notices it opens)
 * and `also`, more data-modifying statements over the same values that run as CTEs of the same statement, as pg's
 * query config takes it once joined ({@link usageQuery}), or as the outbox writer's alongside statement.
 */
export interface UsageStatement {
  ctes: string;
  text: string;
  values: unknown[];
  also?: string[];
}

/** One account's share of the upstream reads and requests spent on one source, as decimal text. */
export interface SourceShare {
  userId: string;
  /** `#tag` or `@user`. */
  source: string;
  reads: string;
  requests: string;
}

/** Upstream use to record: reads per account (decimal text), and the per-source shares they are the sum of. */
export interface UpstreamShares {
  readsByAccount: ReadonlyMap<string, string>;
  bySource: readonly SourceShare[];
}

/** A {@link UsageStatement} as one query. */
export function usageQuery(statement: UsageStatement): { text: string; values: unknown[] } {
  const also = (statement.also ?? []).map((part, n) => `,\nalso_${n} AS (${part})`).join('');
  return { text: `WITH ${statement.ctes}${also}\n${statement.text}`, values: statement.values };
}

/** The alert quota of some accounts, locked until the writer's transaction ends. */
export interface AlertQuota {
  /** The accounts the lock holds a usage row of. */
  readonly accounts: readonly string[];
  /** Alerts the account may still store this period, less those {@link take}n so far. */
  remaining(userId: string): number;
  /** Takes one alert of the account's quota for an item about to be stored; false when none is left. */
  take(userId: string): boolean;
  /**
   * The update that counts what was actually stored (one unit per stored feed item, `stored` per account) and,
   * when given, the upstream posts read on behalf of locked accounts: the same number for each, or per account
   * with its per-source shares (written to upstream_usage_by_source by the statement's `also`); undefined when
   * there is nothing to add. Shares of accounts the lock does not hold are left out.
   */
  recordStatement(stored: ReadonlyMap<string, number>, upstream?: number | UpstreamShares): UsageStatement | undefined;
  /** Runs {@link recordStatement} in the writer's transaction, as one statement. */
  record(client: pg.PoolClient, stored: ReadonlyMap<string, number>, upstream?: number | UpstreamShares): Promise<void>;
}

/**
 * Locks the current usage row of each account (in account order, creating missing ones) for the caller's
 * transaction. With `alongside`, runs that statement in the same round trip and answers its first row.
 */
export async function lockAlertQuota<Alongside extends Record<string, unknown> = Record<string, never>>(
  client: pg.PoolClient,
  userIds: readonly string[],
  alongside?: AlongsideLock,
): Promise<{ quota: AlertQuota; alongside: Alongside | undefined }> {
  const sorted = [...new Set(userIds)].sort();
  let rows: UsageRow[];
  let answer: Alongside | undefined;
  if (alongside) {
    const text = `WITH locked AS MATERIALIZED (${LOCK_USAGE}\n), ${alongside.ctes}\nSELECT (SELECT COALESCE(json_agg(l), '[]'::json) FROM locked l) AS usage, ${alongside.select}`;
    const { rows: result } = await client.query<Alongside & { usage: UsageRow[] }>(text, [sorted, ...alongside.values]);
    const { usage, ...rest } = result[0] ?? { usage: [] };
    rows = usage;
    answer = rest as unknown as Alongside;
  } else {
    rows = sorted.length > 0 ? (await client.query<UsageRow>(LOCK_USAGE, [sorted])).rows : [];
  }
  const usage = new Map(rows.map((row) => [row.user_id, row]));
  const missing = sorted.filter((id) => !usage.has(id));
  if (missing.length > 0) {
    // Once per account and period. These rows are locked after the others, out of order: the rare deadlock
    // that allows is retried by the writer.
    await client.query(CREATE_USAGE, [missing]);
    for (const row of (await client.query<UsageRow>(LOCK_USAGE, [missing])).rows) usage.set(row.user_id, row);
  }
  return { quota: alertQuota(usage), alongside: answer };
}

function alertQuota(usage: ReadonlyMap<string, UsageRow>): AlertQuota {
  const taken = new Map<string, number>();
  const remaining = (userId: string) => {
    const row = usage.get(userId);
    return row ? Math.max(0, row.alerts_limit - row.alerts_used - (taken.get(userId) ?? 0)) : 0;
  };
  const recordStatement = (stored: ReadonlyMap<string, number>, upstream: number | UpstreamShares = 0): UsageStatement | undefined => {
    const readsOf = (userId: string): string | null => {
      if (typeof upstream === 'number') return upstream > 0 ? upstream.toFixed(6) : null;
      return upstream.readsByAccount.get(userId) ?? null;
    };
    const rows = [...usage.values()].filter((row) => readsOf(row.user_id) !== null || (stored.get(row.user_id) ?? 0) > 0);
    if (rows.length === 0) return undefined;
    // Ids for the notices that may open: drawn at once, used only by an account whose usage crosses a threshold.
    const noticeIds = newIds('ntc', rows.length * 2);
    const values: unknown[] = [
      rows.map((row) => row.user_id),
      rows.map((row) => row.period_start),
      rows.map((row) => stored.get(row.user_id) ?? 0),
      rows.map((row) => readsOf(row.user_id) ?? '0'),
      rows.map((_, index) => noticeIds[index * 2]),
      rows.map((_, index) => noticeIds[index * 2 + 1]),
    ];
    const shares = typeof upstream === 'number' ? [] : upstream.bySource.filter((share) => usage.has(share.userId));
    if (shares.length === 0) return { ctes: ADD_USAGE_CTES, text: ADD_USAGE_TEXT, values };
    values.push(
      shares.map((share) => share.userId),
      shares.map((share) => usage.get(share.userId)?.period_start),
      shares.map((share) => share.source),
      shares.map((share) => share.reads),
      shares.map((share) => share.requests),
    );
    return { ctes: ADD_USAGE_CTES, text: ADD_USAGE_TEXT, values, also: [ADD_BY_SOURCE] };
  };
  return {
    accounts: [...usage.keys()],
    remaining,
    take(userId) {
      if (remaining(userId) <= 0) return false;
      taken.set(userId, (taken.get(userId) ?? 0) + 1);
      return true;
    },
    recordStatement,
    async record(client, stored, upstream) {
      const statement = recordStatement(stored, upstream);
      if (statement) await client.query(usageQuery(statement));
    },
  };
}

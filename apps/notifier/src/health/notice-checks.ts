import type pg from 'pg';
import { transaction } from '@hashwatch/db';
import { raiseNotice, resolveNotice, type NoticeKind } from '@hashwatch/notices';
import { failPending } from '../delivery/delivery-store';
import { disabledMessage, failingMessage, span, type HealthChannel } from './channel-health';

/** The time-based conditions: they hold, or end, without any send or feed write to notice it. */
export interface NoticeCheckOptions {
  /** A channel failing with transient errors this long raises `channel_failing` (CONTRACT 8: 1 h). */
  failingAfterMs: number;
  /** A webhook channel failing this long is switched off with `channel_disabled` (CONTRACT 8: 24 h). */
  disableAfterMs: number;
}

/** What one check did, for logs and tests. */
export interface NoticeCheckResult {
  failing: number;
  disabled: number;
  reenabled: number;
  quotaResolved: number;
}

type FailingRow = HealthChannel & { failing_since: Date; last_failure: string | null };

// Channels per check and step: a check that finds more leaves the rest to the next one.
const BATCH = 500;

// A locked row that still meets the step's condition: two replicas checking at once handle it once. Failing means
// sends still being retried: a message the platform refused once (a 400, not retried) on a channel that had nothing
// to send since is not a channel failing for an hour, nor one to switch off a day later.
const RETRYING = (table: string) =>
  `EXISTS (SELECT 1 FROM ${table} d WHERE d.channel_id = notification_channels.id AND d.status = 'pending' AND d.attempts > 0)`;
const FAILING = `failing_since IS NOT NULL AND failing_since <= now() - $2 * interval '1 millisecond' AND enabled AND disabled_reason IS NULL
  AND (${RETRYING('deliveries')} OR ${RETRYING('notice_deliveries')})`;

const ROW = 'id, user_id, kind::text AS kind, url, format, failing_since, last_failure';

/**
 * The notice conditions that end or start with the clock, run by one replica per sweep tick (the sweeper's lock;
 * every step is also safe when two run at once: each locks the row it changes and re-reads the condition, and a
 * notice opens once per condition):
 * 1. a channel failing for `failingAfterMs` with no notice yet raises `channel_failing`;
 * 2. a webhook channel failing for `disableAfterMs` is switched off, its pending deliveries fail, and
 *    `channel_disabled` is raised (its `channel_failing` stays open: no send succeeded);
 * 3. an open `channel_disabled` whose channel was turned back on resolves (its condition, being off, ended);
 * 4. an open quota notice resolves when its period is no longer the account's current one, or when the account's
 *    limit grew so that the usage is below its threshold again (a plan change).
 */
export async function runNoticeChecks(pool: pg.Pool, options: NoticeCheckOptions): Promise<NoticeCheckResult> {
  return {
    failing: await raiseFailing(pool, options),
    disabled: await disableFailing(pool, options),
    reenabled: await resolveReenabled(pool),
    quotaResolved: await resolveQuota(pool),
  };
}

async function raiseFailing(pool: pg.Pool, options: NoticeCheckOptions): Promise<number> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM notification_channels WHERE ${FAILING} AND NOT failure_noticed ORDER BY failing_since LIMIT $1`,
    [BATCH, options.failingAfterMs],
  );
  let raised = 0;
  for (const { id } of rows) {
    const done = await transaction(pool, async (client) => {
      const { rows: locked } = await client.query<FailingRow>(
        `SELECT ${ROW} FROM notification_channels WHERE id = $1 AND ${FAILING} AND NOT failure_noticed FOR UPDATE`,
        [id, options.failingAfterMs],
      );
      const channel = locked[0];
      if (!channel) return false;
      const notice = await raiseNotice(
        client,
        { userId: channel.user_id, kind: 'channel_failing', channelId: channel.id },
        { message: failingMessage(channel, options.failingAfterMs, options.disableAfterMs) },
      );
      // Not raised (the same condition resolved within the cooldown): left unnoticed, so a later check raises it.
      if (!notice) return false;
      await client.query('UPDATE notification_channels SET failure_noticed = true WHERE id = $1', [id]);
      return true;
    });
    if (done) raised += 1;
  }
  return raised;
}

async function disableFailing(pool: pg.Pool, options: NoticeCheckOptions): Promise<number> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM notification_channels WHERE ${FAILING} AND kind = 'webhook' ORDER BY failing_since LIMIT $1`,
    [BATCH, options.disableAfterMs],
  );
  let disabled = 0;
  for (const { id } of rows) {
    const done = await transaction(pool, async (client) => {
      const { rows: locked } = await client.query<FailingRow>(
        `SELECT ${ROW} FROM notification_channels WHERE id = $1 AND ${FAILING} AND kind = 'webhook' FOR UPDATE`,
        [id, options.disableAfterMs],
      );
      const channel = locked[0];
      if (!channel) return false;
      const reason = `failed every send for ${span(options.disableAfterMs)}${channel.last_failure ? `; the last attempt: ${channel.last_failure}` : ''}`;
      await client.query(
        `UPDATE notification_channels SET enabled = false, disabled_reason = $2, updated_at = now(), failure_noticed = true WHERE id = $1`,
        [id, reason],
      );
      await failPending(client, id, `not sent: the channel was disabled (${reason})`);
      await raiseNotice(
        client,
        { userId: channel.user_id, kind: 'channel_disabled', channelId: channel.id },
        // Each switch-off follows a failure the account was told of and a turn back on: no cooldown.
        { message: disabledMessage(channel, options.disableAfterMs), cooldownSeconds: 0 },
      );
      return true;
    });
    if (done) disabled += 1;
  }
  return disabled;
}

async function resolveOpen(pool: pg.Pool, rows: { user_id: string; kind: NoticeKind; subject: string }[]): Promise<number> {
  let resolved = 0;
  for (const row of rows) {
    const notice = await transaction(pool, (client) => resolveNotice(client, { userId: row.user_id, kind: row.kind, subject: row.subject }));
    if (notice) resolved += 1;
  }
  return resolved;
}

async function resolveReenabled(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ user_id: string; kind: NoticeKind; subject: string }>(
    `SELECT n.user_id, n.kind, n.subject FROM notices n JOIN notification_channels c ON c.id = n.channel_id
      WHERE n.kind = 'channel_disabled' AND n.resolved_at IS NULL AND c.enabled AND c.disabled_reason IS NULL
      LIMIT $1`,
    [BATCH],
  );
  return resolveOpen(pool, rows);
}

/**
 * The subject of a quota notice: its period's start, as `periodSubject` writes it (@hashwatch/feed's usage
 * statement, which raises them), compared here with the account's current period.
 */
const CURRENT_PERIOD = `to_char(u.current_period_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

async function resolveQuota(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ user_id: string; kind: NoticeKind; subject: string }>(
    `SELECT n.user_id, n.kind, n.subject
       FROM notices n
       JOIN users u ON u.id = n.user_id
       LEFT JOIN usage_periods p ON p.user_id = u.id AND p.period_start = u.current_period_start
      WHERE n.kind IN ('quota_warning', 'quota_exhausted') AND n.resolved_at IS NULL
        AND (n.subject <> ${CURRENT_PERIOD}
             OR COALESCE(p.alerts_used, 0) < CASE n.kind WHEN 'quota_warning' THEN ceil(u.alerts_limit * 0.8) ELSE u.alerts_limit END)
      LIMIT $1`,
    [BATCH],
  );
  return resolveOpen(pool, rows);
}

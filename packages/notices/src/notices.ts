import type pg from 'pg';
import { z } from 'zod';
import { newId } from '@hashwatch/db';
import { writeOutbox, type OutboxEntry } from '@hashwatch/outbox';
import { jobId } from '@hashwatch/queues';

/** The kinds of system notice (CONTRACT 8). */
export const NOTICE_KINDS = ['source_silent', 'source_failing', 'channel_failing', 'channel_disabled', 'quota_warning', 'quota_exhausted'] as const;
export const noticeKindSchema = z.enum(NOTICE_KINDS);
export type NoticeKind = z.infer<typeof noticeKindSchema>;
export type NoticeState = 'open' | 'resolved';

/**
 * After a condition resolves, the same condition opens no new notice for this long: a source or a channel that
 * flaps is told once, not at every flap. Raised again after the cooldown while the condition still holds.
 */
export const DEFAULT_NOTICE_COOLDOWN_SECONDS = 3_600;

export interface Notice {
  id: string;
  userId: string;
  kind: NoticeKind;
  /** What the condition is about: one open notice per (account, kind, subject). */
  subject: string;
  source: string | null;
  channelId: string | null;
  message: string;
  openedAt: Date;
  resolvedAt: Date | null;
}

/** What a raise names: the condition (kind and subject) and what the user reads. */
export interface NoticeCondition {
  userId: string;
  kind: NoticeKind;
  /** Default: the source, else the channel id, else '' (one condition of that kind per account). */
  subject?: string;
  /** `#tag` (its cashtag too) or `@user` when the notice is about a source. */
  source?: string | null;
  /** The channel's row id when the notice is about a channel: the notice is never sent to it. */
  channelId?: string | null;
}

export interface RaiseOptions {
  message: string;
  /** Default {@link DEFAULT_NOTICE_COOLDOWN_SECONDS}. */
  cooldownSeconds?: number;
  now?: Date;
}

interface NoticeRow {
  id: string;
  user_id: string;
  kind: NoticeKind;
  subject: string;
  source: string | null;
  channel_id: string | null;
  message: string;
  opened_at: Date;
  resolved_at: Date | null;
}

const COLUMNS = 'id, user_id, kind, subject, source, channel_id, message, opened_at, resolved_at';

function toNotice(row: NoticeRow): Notice {
  return {
    id: row.id,
    userId: row.user_id,
    kind: row.kind,
    subject: row.subject,
    source: row.source,
    channelId: row.channel_id,
    message: row.message,
    openedAt: row.opened_at,
    resolvedAt: row.resolved_at,
  };
}

function subjectOf(condition: NoticeCondition): string {
  return condition.subject ?? condition.source ?? condition.channelId ?? '';
}

/** The outbox entry that has the notifier send a notice's opening or resolution (job id notice-<id>-<state>). */
function deliverEntry(noticeId: string, state: NoticeState) {
  return { queue: 'alert-deliveries', name: 'deliver-notice', jobId: jobId('notice', noticeId, state), payload: { noticeId, state } } as const;
}

/** The outbox entries of notices opened or resolved set-based by a writer of its own (one per notice). */
export function deliverNoticeEntries(noticeIds: readonly string[], state: NoticeState): OutboxEntry[] {
  return noticeIds.map((noticeId) => deliverEntry(noticeId, state));
}

/**
 * SQL for a writer that opens notices set-based, inside one statement, under raiseNotice's rules:
 * - `newId`: a fresh `ntc_` id (96 random bits, base64url, as newId makes them: bytes 0-5 and 10-15 of two v4
 *   UUIDs are random);
 * - `coolingDown(n)`: true while the condition in `n`'s columns resolved less than the cooldown ago;
 * - `openedJob(id)`: the `deliver-notice` outbox row of a notice just opened (job id notice-<id>-open: ntc_ ids are
 *   base64url, so nothing in them needs encoding).
 */
export const noticeSql = {
  newId: `'ntc_' || translate(encode(substr(uuid_send(gen_random_uuid()), 1, 6) || substr(uuid_send(gen_random_uuid()), 11, 6), 'base64'), '+/', '-_')`,
  coolingDown: (user: string, kind: string, subject: string, now: string, seconds: string | number = DEFAULT_NOTICE_COOLDOWN_SECONDS) =>
    `EXISTS (SELECT 1 FROM notices n WHERE n.user_id = ${user} AND n.kind = ${kind} AND n.subject = ${subject}
                AND n.resolved_at > ${now} - make_interval(secs => ${seconds}))`,
  openedJobs: (ids: string) =>
    `INSERT INTO outbox_jobs (queue, name, job_id, payload)
SELECT 'alert-deliveries', 'deliver-notice', 'notice-' || o.id || '-open', jsonb_build_object('noticeId', o.id, 'state', 'open') FROM ${ids} o`,
} as const;

/**
 * Opens a notice for `condition` in the caller's transaction, with the job that sends it, unless one is open
 * already or the same condition resolved less than the cooldown ago. Safe under replicas: two raising at once
 * insert one row (the partial unique index on open conditions), and only the one that inserted sends it.
 * Resolves with the notice opened, or null when none was.
 */
export async function raiseNotice(client: pg.PoolClient, condition: NoticeCondition, options: RaiseOptions): Promise<Notice | null> {
  const kind = noticeKindSchema.parse(condition.kind);
  const now = options.now ?? new Date();
  const cooldownSeconds = options.cooldownSeconds ?? DEFAULT_NOTICE_COOLDOWN_SECONDS;
  const { rows } = await client.query<NoticeRow>(
    `INSERT INTO notices (id, user_id, kind, subject, source, channel_id, message, opened_at)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8
      WHERE NOT EXISTS (SELECT 1 FROM notices
                         WHERE user_id = $2 AND kind = $3 AND subject = $4
                           AND resolved_at > $8::timestamptz - make_interval(secs => $9))
     ON CONFLICT (user_id, kind, subject) WHERE resolved_at IS NULL DO NOTHING
     RETURNING ${COLUMNS}`,
    [newId('ntc'), condition.userId, kind, subjectOf(condition), condition.source ?? null, condition.channelId ?? null, options.message, now, cooldownSeconds],
  );
  const row = rows[0];
  if (!row) return null;
  await writeOutbox(client, [deliverEntry(row.id, 'open')]);
  return toNotice(row);
}

/**
 * Resolves the open notice of `condition` in the caller's transaction, with the job that sends the resolution.
 * Resolves with that notice, or null when none was open (a second replica resolving the same one finds none).
 */
export async function resolveNotice(client: pg.PoolClient, condition: Omit<NoticeCondition, 'channelId'> & { channelId?: string | null }, now: Date = new Date()): Promise<Notice | null> {
  const kind = noticeKindSchema.parse(condition.kind);
  const { rows } = await client.query<NoticeRow>(
    `UPDATE notices SET resolved_at = $4
      WHERE user_id = $1 AND kind = $2 AND subject = $3 AND resolved_at IS NULL
      RETURNING ${COLUMNS}`,
    [condition.userId, kind, subjectOf(condition), now],
  );
  const row = rows[0];
  if (!row) return null;
  await writeOutbox(client, [deliverEntry(row.id, 'resolved')]);
  return toNotice(row);
}

/**
 * Resolves the account's open notices about a source it stopped tracking (`#tag` or `@user`), in the caller's
 * transaction, with their resolution jobs: no scan of that source will end them any more, and an open one would
 * keep the same condition from being told again if the source is tracked again. Resolves with the notices.
 */
export async function resolveUntrackedSource(client: pg.PoolClient, userId: string, source: string, now: Date = new Date()): Promise<Notice[]> {
  const { rows } = await client.query<NoticeRow>(
    `UPDATE notices SET resolved_at = $3
      WHERE user_id = $1 AND kind IN ('source_failing', 'source_silent') AND subject = $2 AND resolved_at IS NULL
      RETURNING ${COLUMNS}`,
    [userId, source, now],
  );
  await writeOutbox(client, deliverNoticeEntries(rows.map((row) => row.id), 'resolved'));
  return rows.map(toNotice);
}

/** The open notice of a condition, if any (read-only; for callers deciding whether to raise or resolve). */
export async function openNotice(client: pg.Pool | pg.PoolClient, condition: NoticeCondition): Promise<Notice | null> {
  const { rows } = await client.query<NoticeRow>(
    `SELECT ${COLUMNS} FROM notices WHERE user_id = $1 AND kind = $2 AND subject = $3 AND resolved_at IS NULL`,
    [condition.userId, noticeKindSchema.parse(condition.kind), subjectOf(condition)],
  );
  return rows[0] ? toNotice(rows[0]) : null;
}

/** A notice by id, for the notifier composing its message. */
export async function findNotice(client: pg.Pool | pg.PoolClient, id: string): Promise<Notice | null> {
  const { rows } = await client.query<NoticeRow>(`SELECT ${COLUMNS} FROM notices WHERE id = $1`, [id]);
  return rows[0] ? toNotice(rows[0]) : null;
}

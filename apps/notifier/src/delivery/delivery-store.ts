import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { NoticeBody } from '@hashwatch/channels';
import type { ClaimedDelivery } from './claimed-delivery';
import type { ChannelRow } from './channel-store';

type Queryable = pg.Pool | pg.PoolClient;

export type { ClaimedDelivery } from './claimed-delivery';

/**
 * The tables a drain sends from: alerts (`deliveries`) and system notices (`notice_deliveries`), whose rows
 * have the same status, attempts, claim token and next attempt columns, and so the same outcome statements.
 */
export type SendTable = 'deliveries' | 'notice_deliveries';

/** A pending notice send claimed for one attempt, with the notice as its message carries it. */
export interface ClaimedNotice {
  id: string;
  /** `<notice id>:<state>`: the json format's `webhook-id`. */
  message_id: string;
  attempts: number;
  notice: NoticeBody;
}

// A delivery is due when its next attempt time has come; NULL (older rows, manual retries) counts as now.
const DUE = `d.status = 'pending' AND COALESCE(d.next_attempt_at, '-infinity') <= now()`;

/** A sent message's deliveries, marked delivered with the next claim (one round trip per claim). */
export interface DeliveredMark {
  id: string;
  status: number | null;
  digestId: string | null;
  /** The claim token of the run that sent it: a delivery claimed again since (by a newer run) is not marked. */
  claimToken: string;
}

/**
 * Marks sent deliveries delivered, each only while it still carries the claim token of the run that sent it;
 * its four parameters (ids, statuses, digest ids, claim tokens) are numbered from `$first`.
 */
function markDeliveredStatement(first: number): string {
  return `UPDATE deliveries d
          SET status = 'delivered', delivered_at = now(), last_status = u.status, last_error = NULL, next_attempt_at = NULL,
              digest_id = u.digest_id, updated_at = now()
         FROM unnest($${first}::text[], $${first + 1}::int[], $${first + 2}::text[], $${first + 3}::text[]) AS u(id, status, digest_id, claim_token)
        WHERE d.id = u.id AND d.status = 'pending' AND d.claim_token = u.claim_token`;
}

function markParameters(marks: DeliveredMark[]): [string[], (number | null)[], (string | null)[], string[]] {
  return [marks.map((mark) => mark.id), marks.map((mark) => mark.status), marks.map((mark) => mark.digestId), marks.map((mark) => mark.claimToken)];
}

/**
 * The claim statement's notice part ($1 channel, $5 hold, $10 batch, $11 claim token): the channel's due notice sends,
 * oldest first, up to the batch (a resolution only once its opening to the channel is not pending: never "resolved"
 * before the notice), as one JSON list with the notice each carries, as of its state (the API's shape; bot as `bot`).
 */
const NOTICE_CLAIM = `notice_claimed AS (
       UPDATE notice_deliveries d
          SET attempts = d.attempts + 1, next_attempt_at = now() + $5 * interval '1 millisecond', claim_token = $11,
              updated_at = now()
        WHERE d.id IN (SELECT d.id FROM notice_deliveries d
                        WHERE d.channel_id = $1 AND ${DUE}
                          AND EXISTS (SELECT 1 FROM ch WHERE ch.enabled AND ch.disabled_reason IS NULL)
                          AND NOT (d.state = 'resolved' AND EXISTS (SELECT 1 FROM notice_deliveries o WHERE o.notice_id = d.notice_id AND o.channel_id = d.channel_id AND o.state = 'open' AND o.status = 'pending'))
                        ORDER BY d.created_at, d.id LIMIT $10::int)
          AND ${DUE}
    RETURNING d.id, d.message_id, d.attempts, d.notice_id, d.state, d.created_at),
     notice_items AS (
       SELECT json_agg(json_build_object(
                'id', c.id, 'message_id', c.message_id, 'attempts', c.attempts,
                'notice', json_build_object(
                  'id', n.id, 'kind', n.kind, 'state', c.state, 'source', n.source,
                  'channel_id', CASE WHEN about.kind = 'bot' THEN 'bot' ELSE n.channel_id END,
                  'message', n.message,
                  'opened_at', to_char(n.opened_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                  'resolved_at', CASE WHEN c.state = 'resolved'
                                      THEN to_char(n.resolved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END))
              ORDER BY c.created_at, c.id) AS list
         FROM notice_claimed c
         JOIN notices n ON n.id = c.notice_id
         LEFT JOIN notification_channels about ON about.id = n.channel_id)`;

/** The columns of a channel row the drain reads, as the claim statement answers them (JSON). */
const CHANNEL_COLUMNS = `id, user_id, kind, url, format, bot_name, hashtags, accounts, source_filter, engagement_alerts, template,
       enabled, signing_secret_enc, bot_token_enc, chat_id, disabled_reason, max_per_second, updated_at, failing_since, failure_noticed`;

/**
 * Claims the next due deliveries of one channel for one attempt, in detection order (then id): up to
 * `digestSize` when the channel is in digest mode or its due backlog exceeds `digestThreshold` (one digest
 * message), else up to `batch` (one message each). Claiming counts the attempt, pushes the next attempt
 * `holdMs` ahead and writes the run's `claimToken` (replacing an earlier run's), so a replica that dies
 * mid-send leaves them due again once its lease is gone (at least once), no second drainer can take them
 * meanwhile, and a run that lost its lease cannot record or give back what a newer run claimed since.
 *
 * Due notice sends of the channel (`notice_deliveries`) are claimed in the same statement, the same way, first
 * and within the same `batch` (a burst the destination takes): notices are rare, and news about the monitoring
 * itself goes before the alerts it may explain. They are never folded into digests.
 *
 * One statement, one round trip: it also marks the previous messages' deliveries delivered, answers the
 * channel row (undefined when the channel is gone; nothing is claimed for a disabled one) and the due backlog
 * it saw (capped at one more than the larger of digestThreshold and batch, so a claim of the whole batch still
 * tells whether more is due). All times are the database's clock, the one every replica shares.
 */
export async function claimNext(
  db: Queryable,
  channelId: string,
  input: {
    digestMode: boolean;
    digestThreshold: number;
    digestSize: number;
    /** Deliveries claimed at most when not sending digests. */
    batch: number;
    holdMs: number;
    /** The run's token (its lease's), written on the claimed rows. */
    claimToken: string;
    delivered?: DeliveredMark[];
  },
): Promise<{ channel: ChannelRow | undefined; claimed: ClaimedDelivery[]; notices: ClaimedNotice[]; backlog: number }> {
  const delivered = input.delivered ?? [];
  // The rows marked delivered are left out of the claim below: a send that outlasted the claim's hold (the
  // lease was renewed meanwhile) leaves them due in this statement's snapshot. A data-modifying WITH runs to
  // completion whether or not it is read.
  const { rows } = await db.query<ClaimedDelivery & { backlog: number; channel: ChannelRow; notices: ClaimedNotice[] | null }>(
    `WITH ch AS (SELECT ${CHANNEL_COLUMNS} FROM notification_channels WHERE id = $1),
     done AS (
       ${markDeliveredStatement(6)}
    RETURNING d.id),
     backlog AS (
       SELECT d.id, f.detected_at FROM deliveries d JOIN feed_items f ON f.id = d.feed_item_id
        WHERE d.channel_id = $1 AND ${DUE} AND d.id <> ALL($6::text[])
          AND EXISTS (SELECT 1 FROM ch WHERE ch.enabled AND ch.disabled_reason IS NULL)
        ORDER BY f.detected_at, d.id LIMIT GREATEST($3::int, $10::int) + 1),
     size AS (SELECT count(*)::int AS n FROM backlog),
     ${NOTICE_CLAIM},
     pick AS (
       SELECT id FROM backlog ORDER BY detected_at, id
        LIMIT CASE WHEN $2::boolean OR (SELECT n FROM size) > $3::int THEN $4::int
                   ELSE GREATEST($10::int - (SELECT count(*) FROM notice_claimed)::int, 0) END),
     claimed AS (
       UPDATE deliveries d
          SET attempts = d.attempts + 1, next_attempt_at = now() + $5 * interval '1 millisecond', claim_token = $11,
              updated_at = now()
         FROM pick WHERE d.id = pick.id AND ${DUE}
    RETURNING d.id, d.message_id, d.attempts, d.feed_item_id, d.late),
     items AS (
       SELECT c.id, c.message_id, c.attempts, c.feed_item_id, c.late, f.type, f.hashtag, f.account, f.matched_by, f.sources, f.author,
              f.author_name, f.text, f.url, f.lang, f.urls, f.media, f.quoted, f.edited_at, f.deleted, f.posted_at,
              f.detected_at, f.parent_id, f.kind, p.url AS parent_url, p.text AS parent_text
         FROM claimed c
         JOIN feed_items f ON f.id = c.feed_item_id
         LEFT JOIN feed_items p ON p.id = f.parent_id)
     SELECT items.*, to_json(ch) AS channel, (SELECT n FROM size) AS backlog, (SELECT list FROM notice_items) AS notices
       FROM ch LEFT JOIN items ON true
      ORDER BY items.detected_at, items.id`,
    [
      channelId,
      input.digestMode,
      input.digestThreshold,
      input.digestSize,
      input.holdMs,
      ...markParameters(delivered),
      Math.max(1, input.batch),
      input.claimToken,
    ],
  );
  const first = rows[0];
  if (!first) return { channel: undefined, claimed: [], notices: [], backlog: 0 };
  // A LEFT JOIN row without a delivery: the channel exists and nothing was claimed.
  const claimed = first.id === null ? [] : rows.map(({ channel: _channel, backlog: _backlog, notices: _notices, ...delivery }) => delivery);
  return { channel: first.channel, claimed, notices: first.notices ?? [], backlog: first.backlog ?? 0 };
}

export async function markDelivered(db: Queryable, marks: DeliveredMark[]): Promise<void> {
  if (marks.length === 0) return;
  await db.query(markDeliveredStatement(1), markParameters(marks));
}

/**
 * Records a transient failure: the deliveries fall due again in `delayMs`, unless they were created more than
 * `retryWindowMs` ago, in which case they fail for good with the reason and the number of attempts made.
 * Like every outcome, only for those still claimed with `claimToken` (the run's).
 */
export async function markRetry(
  db: Queryable,
  ids: string[],
  claimToken: string,
  input: { status: number | null; reason: string; delayMs: number; retryWindowMs: number },
  table: SendTable = 'deliveries',
): Promise<{ gaveUp: number }> {
  const { rows } = await db.query<{ status: string }>(
    `UPDATE ${table} d
        SET last_status = $2, updated_at = now(),
            status = CASE WHEN g.gave_up THEN 'failed'::delivery_status ELSE 'pending'::delivery_status END,
            next_attempt_at = CASE WHEN g.gave_up THEN NULL ELSE now() + $4 * interval '1 millisecond' END,
            last_error = CASE WHEN g.gave_up
                              THEN 'gave up after ' || d.attempts || ' attempts: ' || $3
                              ELSE $3 END
       FROM (SELECT id, now() - created_at >= $5 * interval '1 millisecond' AS gave_up
               FROM ${table} WHERE id = ANY($1::text[])) g
      WHERE d.id = g.id AND d.status = 'pending' AND d.claim_token = $6
  RETURNING d.status`,
    [ids, input.status, input.reason, input.delayMs, input.retryWindowMs, claimToken],
  );
  return { gaveUp: rows.filter((row) => row.status === 'failed').length };
}

/**
 * Records claimed deliveries as skipped for good, never sent (a late alert claimed for a chat platform: the channel's
 * format changed after routing). Only those still claimed with `claimToken`.
 */
export async function markSkipped(db: Queryable, ids: string[], claimToken: string, reason: string): Promise<void> {
  await db.query(
    `UPDATE deliveries SET status = 'skipped', attempts = GREATEST(attempts - 1, 0), last_error = $2, next_attempt_at = NULL, updated_at = now()
      WHERE id = ANY($1::text[]) AND status = 'pending' AND claim_token = $3`,
    [ids, reason, claimToken],
  );
}

/** Records a permanent failure of the deliveries still claimed with `claimToken`. */
export async function markFailed(db: Queryable, ids: string[], claimToken: string, status: number | null, reason: string, table: SendTable = 'deliveries'): Promise<void> {
  await db.query(
    `UPDATE ${table} SET status = 'failed', last_status = $2, last_error = $3, next_attempt_at = NULL, updated_at = now()
      WHERE id = ANY($1::text[]) AND status = 'pending' AND claim_token = $4`,
    [ids, status, reason, claimToken],
  );
}

/**
 * Makes claimed deliveries due again now without counting the attempt (claimed but not sent: pace, end of
 * turn, a migration, a failed run, a lost lease). Only those still claimed with `claimToken`: a newer run's
 * claim of the same rows stays as it is.
 */
export async function releaseClaim(db: Queryable, ids: string[], claimToken: string, table: SendTable = 'deliveries'): Promise<void> {
  await db.query(
    `UPDATE ${table} SET attempts = GREATEST(attempts - 1, 0), next_attempt_at = now(), updated_at = now()
      WHERE id = ANY($1::text[]) AND status = 'pending' AND claim_token = $2`,
    [ids, claimToken],
  );
}

/**
 * The channel's target took a retried message: it is back, so its other deliveries waiting for a retry are due
 * now instead of at their backoff (up to an hour after a long outage), in detection order behind the claim. Left
 * alone: the run's own claim (`claimToken`, some still unsent) and deliveries a 429 set a time for (the target
 * said when). Answers how many were made due.
 */
export async function reviveRetries(db: Queryable, channelId: string, claimToken: string): Promise<number> {
  const revive = (table: SendTable) =>
    `UPDATE ${table} SET next_attempt_at = now(), updated_at = now()
      WHERE channel_id = $1 AND status = 'pending' AND next_attempt_at > now()
        AND claim_token IS DISTINCT FROM $2 AND last_status IS DISTINCT FROM 429
  RETURNING 1`;
  // Notice sends too: they wait for the same target.
  const { rows } = await db.query<{ n: number }>(
    `WITH alerts AS (${revive('deliveries')}), notices AS (${revive('notice_deliveries')})
     SELECT ((SELECT count(*) FROM alerts) + (SELECT count(*) FROM notices))::int AS n`,
    [channelId, claimToken],
  );
  return rows[0]?.n ?? 0;
}

/** Records a sent notice at once (notices are rare): only while it still carries the sending run's claim token. */
export async function markNoticeDelivered(db: Queryable, ids: string[], claimToken: string, status: number | null): Promise<void> {
  await db.query(
    `UPDATE notice_deliveries SET status = 'delivered', delivered_at = now(), last_status = $2, last_error = NULL, next_attempt_at = NULL,
            updated_at = now()
      WHERE id = ANY($1::text[]) AND status = 'pending' AND claim_token = $3`,
    [ids, status, claimToken],
  );
}

/** Fails every pending delivery of a channel that can no longer be sent to; returns how many. */
export async function failPending(db: Queryable, channelId: string, reason: string): Promise<number> {
  const fail = (table: SendTable) =>
    `UPDATE ${table} SET status = 'failed', last_error = $2, next_attempt_at = NULL, updated_at = now()
      WHERE channel_id = $1 AND status = 'pending' RETURNING 1`;
  const { rows } = await db.query<{ n: number }>(
    `WITH alerts AS (${fail('deliveries')}), notices AS (${fail('notice_deliveries')})
     SELECT ((SELECT count(*) FROM alerts) + (SELECT count(*) FROM notices))::int AS n`,
    [channelId, reason],
  );
  return rows[0]?.n ?? 0;
}

/** Channels with at least one due delivery or notice send: what the sweeper wakes. */
export async function channelsWithDueDeliveries(db: Queryable, limit = 10_000): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT c.id FROM notification_channels c
      WHERE EXISTS (SELECT 1 FROM deliveries d WHERE d.channel_id = c.id AND ${DUE})
         OR EXISTS (SELECT 1 FROM notice_deliveries d WHERE d.channel_id = c.id AND ${DUE})
      LIMIT $1`,
    [limit],
  );
  return rows.map((row) => row.id);
}

function digest(text: string, length: number): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, length);
}

/**
 * The Standard Webhooks `webhook-id` of one (channel, feed item): derived from the pair, so it is the same on
 * every retry, on every replica, and even if routing runs twice after a crash.
 */
export function messageIdFor(channelId: string, feedItemId: string): string {
  return `msg_${digest(`${channelId}\n${feedItemId}`, 24)}`;
}

/** A digest's id (and `webhook-id`): derived from its deliveries, so resending the same digest repeats it. */
export function digestIdFor(deliveryIds: string[]): string {
  return `dig_${digest(deliveryIds.join('\n'), 24)}`;
}

/** Collects delivered marks from many drains and writes them together. */
export interface DeliveredWriter {
  /** Queues marks; resolves once they are written (or, after retries, given up on: see below). */
  write(marks: DeliveredMark[]): Promise<void>;
  /** Waits for every queued mark. */
  close(): Promise<void>;
}

const MAX_MARKS_PER_STATEMENT = 1_000;

/**
 * Group commit for the end of drain runs: marks queued while one UPDATE is on its way go out together in the
 * next, so many channels finishing at once cost one statement. A mark that cannot be written (the database
 * away for good) leaves its deliveries claimed; they fall due again when the claim's hold runs out and are
 * sent again with the same webhook-id (at least once). A mark whose delivery a newer run claimed since (the
 * sending run lost its lease) is skipped: that run records its own outcome.
 */
export function createDeliveredWriter(db: Queryable, onError: (error: unknown) => void): DeliveredWriter {
  const queued: { marks: DeliveredMark[]; done: () => void }[] = [];
  let running: Promise<void> | undefined;

  const writeQueued = async (): Promise<void> => {
    while (queued.length > 0) {
      const batch = queued.splice(0, queued.length);
      const marks = batch.flatMap((entry) => entry.marks);
      for (let start = 0; start < marks.length; start += MAX_MARKS_PER_STATEMENT) {
        const slice = marks.slice(start, start + MAX_MARKS_PER_STATEMENT);
        for (let attempt = 1; ; attempt += 1) {
          try {
            await markDelivered(db, slice);
            break;
          } catch (error) {
            if (attempt >= 3) {
              onError(error);
              break;
            }
            await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
          }
        }
      }
      for (const entry of batch) entry.done();
    }
  };

  const start = () => {
    if (running) return;
    running = writeQueued().finally(() => {
      running = undefined;
      // Queued between the last check and now.
      if (queued.length > 0) start();
    });
  };

  return {
    write(marks) {
      if (marks.length === 0) return Promise.resolve();
      const written = new Promise<void>((resolve) => queued.push({ marks, done: resolve }));
      start();
      return written;
    },
    async close() {
      while (running) await running;
    },
  };
}

import type pg from 'pg';
import { channelKindOf, type ChannelKind, type WebhookFormat } from '@hashwatch/channels';
import { transaction } from '@hashwatch/db';
import { raiseNotice, resolveNotice, type Notice } from '@hashwatch/notices';
import { failPending } from '../delivery/delivery-store';

/**
 * Channel health (CONTRACT 8; docs/decisions/notice-detection.md). A channel is failing from
 * its oldest failed send since its last successful one (`failing_since`). A platform that refuses the channel for
 * good (Telegram 401/403/404, Discord 401/404, a dead Slack webhook, a json 410, settings that can never work)
 * switches it off at once and raises `channel_failing`; one failing with transient errors raises it once
 * `failing_since` is `failingAfterMs` old (1 h), and a webhook is switched off with `channel_disabled` once it is
 * `disableAfterMs` old (24 h). The next successful send resolves both.
 */

/** What the notice texts need of a channel row. */
export interface HealthChannel {
  id: string;
  user_id: string;
  kind: 'webhook' | 'bot';
  url: string | null;
  format: WebhookFormat;
}

/** A failed send as the drain saw it: its HTTP status (null without an answer) and reason (never a secret). */
export interface SendFailureFacts {
  platform: ChannelKind;
  status: number | null;
  reason: string;
}

const NAMES: Record<ChannelKind, string> = { telegram: 'The Telegram bot', discord: 'The Discord webhook', slack: 'The Slack webhook', json: 'The webhook' };

const TURN_ON = 'then turn the channel back on (PUT /notifications with `enabled: true`, or the dashboard)';

/** `1 h`, `24 h`, `90 min`, `5 s`: how long a configured span is, for the texts. */
export function span(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

function utc(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The text of a `channel_failing` notice raised at a refusal: what the platform said and what to do. */
export function refusalMessage(failure: SendFailureFacts): string {
  const { platform, status, reason } = failure;
  const stopped = 'Hashwatch stopped sending to it so it is not retried for ever';
  if (status === null) {
    const why = reason.replace(/^the channel cannot be used: /, '');
    return `${NAMES[platform]} channel cannot be used: ${why}. ${stopped}: fix its settings, ${TURN_ON}.`;
  }
  if (platform === 'telegram') {
    if (status === 403) {
      return `Telegram refused the bot (403): ${reason}. The bot was removed from the chat or blocked. ${stopped}: re-add the bot to the chat (or unblock it), ${TURN_ON}.`;
    }
    if (status === 401 || status === 404) {
      return `Telegram rejected the bot's token (${status}): ${reason}. The token was revoked or replaced in BotFather. ${stopped}: save the bot's current token, ${TURN_ON}.`;
    }
    return `Telegram cannot reach the chat (${status}): ${reason}. ${stopped}: check the chat id and that the bot is a member of the chat, ${TURN_ON}.`;
  }
  if (platform === 'discord') {
    if (status === 404) {
      return `The Discord webhook was deleted in Discord (404): ${reason}. ${stopped}: create a webhook in the Discord channel (Edit Channel → Integrations → Webhooks), save its URL on this channel, ${TURN_ON}.`;
    }
    return `Discord rejected the webhook's token (${status}): ${reason}. The webhook was reset or its URL is wrong. ${stopped}: save the webhook's current URL, ${TURN_ON}.`;
  }
  if (platform === 'slack') {
    return `Slack refused the webhook (${status}): ${reason}. The webhook was removed or its Slack channel archived. ${stopped}: create an incoming webhook in Slack, save its URL, ${TURN_ON}.`;
  }
  return `The webhook receiver refused the channel for good (${status}): ${reason}. ${stopped}: fix the receiver, ${TURN_ON}.`;
}

/** The text of a `channel_failing` notice raised after `afterMs` of transient failures. */
export function failingMessage(channel: HealthChannel & { failing_since: Date; last_failure: string | null }, afterMs: number, disableAfterMs: number): string {
  const platform = channelKindOf(channel);
  const last = channel.last_failure ? ` The last attempt: ${channel.last_failure}.` : '';
  const what = platform === 'json' ? 'check that the receiver is up and answers 2xx' : `check the ${platform === 'telegram' ? 'bot and chat' : 'webhook'} and ${platform[0]?.toUpperCase()}${platform.slice(1)}'s status`;
  const off = channel.kind === 'webhook' ? ` After ${span(disableAfterMs)} of failures the channel is switched off.` : '';
  return `${NAMES[platform]} has failed every send for more than ${span(afterMs)} (since ${utc(channel.failing_since)}).${last} Alerts wait and are retried: ${what}.${off}`;
}

/** The text of a `channel_disabled` notice: a webhook failing for `afterMs`, switched off. */
export function disabledMessage(channel: HealthChannel & { failing_since: Date; last_failure: string | null }, afterMs: number): string {
  const platform = channelKindOf(channel);
  const last = channel.last_failure ? ` (the last attempt: ${channel.last_failure})` : '';
  return `${NAMES[platform]} failed every send for ${span(afterMs)} since ${utc(channel.failing_since)}${last}, so Hashwatch switched it off; the alerts it did not take stay in the feed (GET /v1/posts). Fix the receiver, ${TURN_ON}.`;
}

/**
 * A send to the channel failed (not counting a 429: a target that says when to come back is alive): the channel
 * is failing from now on unless it already was. One statement; no notice here (the periodic check raises it).
 */
export async function recordChannelFailure(db: pg.Pool, channelId: string, failure: { status: number | null; reason: string }): Promise<void> {
  await db.query(
    `UPDATE notification_channels
        SET failing_since = COALESCE(failing_since, now()), last_failure = $2, last_failure_status = $3
      WHERE id = $1`,
    [channelId, failure.reason, failure.status],
  );
}

/**
 * A send to the channel succeeded while its row said it was failing or noticed: it is healthy again, and its open
 * `channel_failing` and `channel_disabled` notices resolve, in one transaction. Answers the notices resolved.
 * Safe under replicas: only the transaction that clears the row resolves.
 */
export async function recordChannelSuccess(pool: pg.Pool, channelId: string): Promise<Notice[]> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ user_id: string }>(
      `UPDATE notification_channels SET failing_since = NULL, last_failure = NULL, last_failure_status = NULL, failure_noticed = false
        WHERE id = $1 AND (failing_since IS NOT NULL OR failure_noticed)
        RETURNING user_id`,
      [channelId],
    );
    const row = rows[0];
    if (!row) return [];
    const resolved: Notice[] = [];
    for (const kind of ['channel_failing', 'channel_disabled'] as const) {
      const notice = await resolveNotice(client, { userId: row.user_id, kind, channelId });
      if (notice) resolved.push(notice);
    }
    return resolved;
  });
}

/** The statuses CONTRACT 8 names as a platform refusing a channel for good: told at the first such send. */
export const REFUSED_STATUSES: ReadonlySet<number> = new Set([401, 403, 404]);

/** The text of a `channel_failing` notice for a 401/403/404 the adapter does not treat as the channel's end (json). */
export function refusedSendMessage(failure: SendFailureFacts): string {
  const what = failure.status === 404 ? 'the address no longer exists there (moved or removed)' : 'it does not accept our requests (its credentials or signature check)';
  return `${NAMES[failure.platform]} refused an alert (${failure.status}): ${failure.reason}. It says ${what}. Later alerts are still sent and the first one it takes ends this notice: fix the receiver, or save the channel's new URL.`;
}

/**
 * A send answered 401, 403 or 404 by a target the adapter keeps (a json receiver: such an answer may be a deploy
 * in progress, so the channel is not switched off for it): the channel is failing, and `channel_failing` opens
 * at once (CONTRACT 8), in one transaction; the next successful send resolves it. Answers the notice, if opened.
 */
export async function noticeRefusedSend(pool: pg.Pool, channelId: string, failure: SendFailureFacts): Promise<Notice | null> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ user_id: string }>(
      `UPDATE notification_channels
          SET failing_since = COALESCE(failing_since, now()), last_failure = $2, last_failure_status = $3
        WHERE id = $1
        RETURNING user_id`,
      [channelId, failure.reason, failure.status],
    );
    const row = rows[0];
    if (!row) return null;
    const notice = await raiseNotice(client, { userId: row.user_id, kind: 'channel_failing', channelId }, { message: refusedSendMessage(failure) });
    if (notice) await client.query('UPDATE notification_channels SET failure_noticed = true WHERE id = $1', [channelId]);
    return notice;
  });
}

/**
 * The platform refused the channel for good (or its settings can never work): it is switched off at once with the
 * reason (GET /notifications shows it until a PUT with `enabled: true`), its pending deliveries fail, and the
 * account is told, in one transaction: by `channel_failing`, or, when that is still open from before (the channel
 * was turned back on and is refused again), by `channel_disabled`. Neither waits for a cooldown: a refused channel
 * stays off until the account acts, so it cannot flap. Answers the deliveries failed and the notice raised.
 */
export async function refuseChannel(pool: pg.Pool, channelId: string, failure: SendFailureFacts): Promise<{ failed: number; notice: Notice | null }> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ user_id: string }>(
      `UPDATE notification_channels
          SET enabled = false, disabled_reason = $2, updated_at = now(), failing_since = COALESCE(failing_since, now()),
              last_failure = $2, last_failure_status = $3, failure_noticed = true
        WHERE id = $1
        RETURNING user_id`,
      [channelId, failure.reason, failure.status],
    );
    const row = rows[0];
    if (!row) return { failed: 0, notice: null };
    const failed = await failPending(client, channelId, `not sent: the channel was disabled (${failure.reason})`);
    const message = refusalMessage(failure);
    const condition = { userId: row.user_id, channelId };
    const notice =
      (await raiseNotice(client, { ...condition, kind: 'channel_failing' }, { message, cooldownSeconds: 0 })) ??
      (await raiseNotice(client, { ...condition, kind: 'channel_disabled' }, { message, cooldownSeconds: 0 }));
    return { failed, notice };
  });
}

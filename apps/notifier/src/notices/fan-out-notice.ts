import type pg from 'pg';
import { noticesByDefault, type WebhookFormat } from '@hashwatch/channels';
import { newIds } from '@hashwatch/db';
import { findNotice, type NoticeState } from '@hashwatch/notices';

interface ChannelRow {
  id: string;
  kind: 'webhook' | 'bot';
  url: string | null;
  format: WebhookFormat;
  notices: boolean | null;
}

/**
 * Whether a channel receives notices: its own switch, else its platform's default (CONTRACT 8): on for Discord,
 * Slack and the Telegram bot, off for json, so no receiver meets a message shape it does not expect.
 */
export function takesNotices(channel: Pick<ChannelRow, 'kind' | 'url' | 'format' | 'notices'>): boolean {
  return channel.notices ?? noticesByDefault(channel);
}

/**
 * The `deliver-notice` job: one notice_deliveries row per channel of the account that takes notices, is enabled,
 * and is not the channel the notice is about. Rows are unique per (notice, state, channel), so a job run twice,
 * or by two replicas at once, creates each send once. Resolves with the channels given a new send, for their
 * drains to be woken.
 */
export async function fanOutNotice(pool: pg.Pool, noticeId: string, state: NoticeState): Promise<string[]> {
  const notice = await findNotice(pool, noticeId);
  // A notice erased with its account (or its channel) since the job was written: nothing to send.
  if (!notice) return [];
  const { rows: channels } = await pool.query<ChannelRow>(
    `SELECT id, kind::text AS kind, url, format, notices FROM notification_channels
      WHERE user_id = $1 AND enabled AND disabled_reason IS NULL AND id IS DISTINCT FROM $2`,
    [notice.userId, notice.channelId],
  );
  const targets = channels.filter(takesNotices).map((channel) => channel.id);
  if (targets.length === 0) return [];
  // A resolution also creates the opening's sends it finds missing: the opening's job may not have run yet (both
  // relayed together), may have failed for good, or the channel came after it. The drain sends a notice's
  // resolution only once its opening is no longer pending, so a channel reads them in order.
  const states: NoticeState[] = state === 'resolved' ? ['open', 'resolved'] : ['open'];
  const sends = states.flatMap((sendState) => targets.map((channelId) => ({ state: sendState, channelId })));
  const { rows } = await pool.query<{ channel_id: string }>(
    `INSERT INTO notice_deliveries (id, user_id, notice_id, state, channel_id, message_id)
     SELECT t.id, $1, $2, t.state, t.channel_id, $2 || ':' || t.state
       FROM unnest($3::text[], $4::text[], $5::text[]) AS t(id, state, channel_id)
     ON CONFLICT (notice_id, state, channel_id) DO NOTHING
     RETURNING channel_id`,
    [notice.userId, notice.id, newIds('dlv', sends.length), sends.map((send) => send.state), sends.map((send) => send.channelId)],
  );
  return [...new Set(rows.map((row) => row.channel_id))];
}

import type pg from 'pg';
import type { NotificationChannelRow } from '@hashwatch/channels';
import type { RoutingChannel } from '../routing/channel-routing';
import { failPending } from './delivery-store';

/** One notification_channels row as the drain reads it; secrets still sealed (unsealChannel opens them per run). */
export interface ChannelRow extends NotificationChannelRow {
  user_id: string;
  /**
   * Changes with every write to the row. A drain compares the whole row it reads at each claim with the last
   * one and unseals the config again only when they differ.
   */
  updated_at?: string | Date;
}

export function routingChannel(row: Pick<ChannelRow, 'id' | 'hashtags' | 'accounts' | 'source_filter' | 'engagement_alerts'>): RoutingChannel {
  return {
    id: row.id,
    hashtags: row.hashtags ?? [],
    accounts: row.accounts ?? [],
    sourceFilter: row.source_filter,
    engagementAlerts: row.engagement_alerts,
  };
}

/**
 * The platform told us to stop (Discord 404, Telegram blocked, Slack archived...), or the channel's config can
 * never work: the channel is switched off with the reason, which GET /notifications shows until a PUT with
 * `enabled: true` clears it, and its pending deliveries fail. Answers how many failed.
 */
export async function disableChannel(pool: pg.Pool, channelId: string, reason: string): Promise<number> {
  await pool.query(
    `UPDATE notification_channels SET enabled = false, disabled_reason = $2, updated_at = now() WHERE id = $1`,
    [channelId, reason],
  );
  return failPending(pool, channelId, `not sent: the channel was disabled (${reason})`);
}

/** Telegram: the group became a supergroup with a new chat id (the Bot API's migrate_to_chat_id); later alerts go there. */
export async function migrateChat(pool: pg.Pool, channelId: string, from: string, to: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE notification_channels SET chat_id = $3, updated_at = now() WHERE id = $1 AND chat_id = $2`,
    [channelId, from, to],
  );
  return (rowCount ?? 0) > 0;
}

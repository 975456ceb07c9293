import type pg from 'pg';
import type { NotificationChannelRow } from '@hashwatch/channels';
import type { RoutingChannel } from '../routing/channel-routing';

/** One notification_channels row as the drain reads it; secrets still sealed (unsealChannel opens them per run). */
export interface ChannelRow extends NotificationChannelRow {
  user_id: string;
  /**
   * Changes with every write to the row. A drain compares the whole row it reads at each claim with the last
   * one and unseals the config again only when they differ.
   */
  updated_at?: string | Date;
  /** Channel health (see health/channel-health.ts): set while the channel fails; a success then clears it. */
  failing_since?: string | Date | null;
  /** A channel notice is open: the next successful send resolves it. */
  failure_noticed?: boolean;
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

/** Telegram: the group became a supergroup with a new chat id (the Bot API's migrate_to_chat_id); later alerts go there. */
export async function migrateChat(pool: pg.Pool, channelId: string, from: string, to: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE notification_channels SET chat_id = $3, updated_at = now() WHERE id = $1 AND chat_id = $2`,
    [channelId, from, to],
  );
  return (rowCount ?? 0) > 0;
}

import type pg from 'pg';
import { resolveFormat, type ChannelConfig, type WebhookFormat } from '@hashwatch/channels';
import type { Cipher } from '@hashwatch/secrets';
import type { RoutingChannel } from '../routing/channel-routing';

/** One notification_channels row as the drain reads it; secrets still sealed. */
export interface ChannelRow {
  id: string;
  user_id: string;
  kind: 'webhook' | 'bot';
  url: string | null;
  format: WebhookFormat;
  bot_name: string;
  hashtags: string[] | null;
  accounts: string[] | null;
  source_filter: RoutingChannel['sourceFilter'];
  engagement_alerts: boolean;
  template: string;
  enabled: boolean;
  signing_secret_enc: string | null;
  bot_token_enc: string | null;
  chat_id: string | null;
  disabled_reason: string | null;
  /**
   * Changes with every write to the row. A drain compares the whole row it reads at each claim with the last
   * one and unseals the config again only when they differ.
   */
  updated_at?: string | Date;
}

export async function loadChannel(pool: pg.Pool, channelId: string): Promise<ChannelRow | undefined> {
  const { rows } = await pool.query<ChannelRow>(
    `SELECT id, user_id, kind, url, format, bot_name, hashtags, accounts, source_filter, engagement_alerts, template,
            enabled, signing_secret_enc, bot_token_enc, chat_id, disabled_reason
       FROM notification_channels WHERE id = $1`,
    [channelId],
  );
  return rows[0];
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
 * The channel as @hashwatch/channels takes it, secrets unsealed for this one drain run. The value lives in
 * the run's local scope only: nothing shared between jobs ever holds a secret.
 */
export function channelConfig(row: ChannelRow, cipher: Cipher, telegramBaseUrl: string): ChannelConfig {
  if (row.kind === 'bot') {
    return {
      kind: 'telegram',
      botName: row.bot_name,
      template: row.template,
      botToken: row.bot_token_enc ? cipher.decrypt(row.bot_token_enc) : undefined,
      chatId: row.chat_id ?? undefined,
      telegramBaseUrl,
    };
  }
  const url = row.url ?? '';
  return {
    kind: resolveFormat(row.format, url),
    url,
    botName: row.bot_name,
    template: row.template,
    signingSecret: row.signing_secret_enc ? cipher.decrypt(row.signing_secret_enc) : undefined,
  };
}

/**
 * The platform told us to stop (Discord 404, Telegram blocked, Slack archived...): the channel is switched off
 * with the reason, which GET /notifications shows until a PUT with `enabled: true` clears it.
 */
export async function disableChannel(pool: pg.Pool, channelId: string, reason: string): Promise<void> {
  await pool.query(
    `UPDATE notification_channels SET enabled = false, disabled_reason = $2, updated_at = now() WHERE id = $1`,
    [channelId, reason],
  );
}

/** Telegram: the group became a supergroup with a new chat id (PLATFORMS e); later alerts go there. */
export async function migrateChat(pool: pg.Pool, channelId: string, from: string, to: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE notification_channels SET chat_id = $3, updated_at = now() WHERE id = $1 AND chat_id = $2`,
    [channelId, from, to],
  );
  return (rowCount ?? 0) > 0;
}

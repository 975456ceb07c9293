import type pg from 'pg';
import { buildTestAlert, ChannelConfigError, deliver, resolveFormat, type ChannelConfig, type DeliveryAttempt } from '@hashwatch/channels';
import { AppError } from '@hashwatch/errors';
import { randomToken, type Cipher } from '@hashwatch/secrets';
import type { GatewayDeps } from '../../deps';
import type { NotificationOptions } from './notification-options';
import { DEFAULT_BOT_NAME, type NotificationTest } from './notifications.schema';
import { CHANNEL_COLUMNS, openSecret, type ChannelRow } from './notifications.service';

async function findChannel(pool: pg.Pool, userId: string, selector: NotificationTest): Promise<ChannelRow> {
  if (selector.channel === 'webhook') {
    const { rows } = await pool.query<ChannelRow>(
      `SELECT ${CHANNEL_COLUMNS} FROM notification_channels WHERE id = $1 AND user_id = $2 AND kind = 'webhook'`,
      [selector.id, userId],
    );
    if (!rows[0]) throw new AppError('not_found', `no webhook ${selector.id}`);
    return rows[0];
  }
  const { rows } = await pool.query<ChannelRow>(`SELECT ${CHANNEL_COLUMNS} FROM notification_channels WHERE user_id = $1 AND kind = 'bot'`, [userId]);
  if (!rows[0]) throw new AppError('not_found', 'no bot channel is configured; add one with PUT /notifications');
  return rows[0];
}

/** The secret of a channel for this one call; a secret that cannot be opened is a failed test, not a 500. */
function requireSecret(cipher: Cipher, sealed: string | null, what: string, remedy: string): string {
  const secret = openSecret(cipher, sealed);
  if (secret === null) {
    throw new AppError('delivery_failed', `the test alert was not sent: the ${what} cannot be opened with this server's SECRETS_KEY; ${remedy}`);
  }
  return secret;
}

/** The channel as @hashwatch/channels takes it, secrets unsealed for this one call. */
function channelConfig(row: ChannelRow, cipher: Cipher, options: NotificationOptions): ChannelConfig {
  if (row.kind === 'bot') {
    return {
      kind: 'telegram',
      botName: DEFAULT_BOT_NAME,
      template: row.template,
      botToken: requireSecret(cipher, row.bot_token_enc, 'bot token', 'send the token again with PUT /notifications'),
      chatId: row.chat_id ?? '',
      telegramBaseUrl: options.telegramBaseUrl,
    };
  }
  const url = row.url ?? '';
  return {
    kind: resolveFormat(row.format, url),
    url,
    botName: row.bot_name,
    template: row.template,
    signingSecret: requireSecret(cipher, row.signing_secret_enc, 'signing secret', 'save the webhook again without its id to get a new secret'),
  };
}

/** Reasons from @hashwatch/channels are already redacted; this also removes the exact secrets of this channel. */
function withoutSecrets(text: string, channel: ChannelConfig): string {
  let out = text;
  for (const secret of [channel.botToken, channel.signingSecret]) {
    if (secret) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/**
 * Sends the test alert now, once, through the same adapters the notifier uses, with the channel's real
 * format, template, signing secret or token. A disabled channel is tested too (that is how a client checks a
 * fix before re-enabling it); the test never changes the channel and writes no delivery row.
 */
export async function sendTestAlert(
  deps: GatewayDeps,
  options: NotificationOptions,
  userId: string,
  selector: NotificationTest,
): Promise<{ delivered: true; status: number }> {
  const row = await findChannel(deps.db.pool, userId, selector);
  const channel = channelConfig(row, deps.cipher, options);
  const now = deps.now();
  const target = row.kind === 'bot' ? 'Telegram' : `the ${channel.kind} webhook`;
  let attempt: DeliveryAttempt;
  try {
    attempt = await deliver(buildTestAlert({ now }), channel, { messageId: `msg_${randomToken(16)}`, timestamp: now }, options.sender);
  } catch (error) {
    if (!(error instanceof ChannelConfigError)) throw error;
    throw new AppError('delivery_failed', withoutSecrets(`the test alert was not sent to ${target}: ${error.message}`, channel));
  }
  const { outcome, status } = attempt;
  deps.logger.info('notification test sent', { userId, channelId: row.id, kind: channel.kind, outcome: outcome.outcome, status });
  if (outcome.outcome === 'delivered' && status !== null) return { delivered: true, status };
  const reason = outcome.outcome === 'delivered' ? 'no HTTP answer' : outcome.reason;
  throw new AppError('delivery_failed', withoutSecrets(`the test alert was not delivered to ${target}: ${reason}`, channel));
}

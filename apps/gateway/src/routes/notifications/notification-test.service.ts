import type pg from 'pg';
import {
  buildTestAlert,
  ChannelConfigError,
  deliver,
  MissingSecretError,
  unsealChannel,
  UnreadableSecretError,
  type ChannelConfig,
  type ChannelSecret,
  type DeliveryAttempt,
} from '@hashwatch/channels';
import { AppError } from '@hashwatch/errors';
import { randomToken, type Cipher } from '@hashwatch/secrets';
import type { GatewayDeps } from '../../deps';
import type { NotificationOptions } from './notification-options';
import type { NotificationTest } from './notifications.schema';
import { CHANNEL_COLUMNS, type ChannelRow } from './notifications.service';

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

const REMEDY: Record<ChannelSecret, string> = {
  'signing secret': 'save the webhook again without its id to get a new secret',
  'bot token': 'send the token again with PUT /notifications',
};

/**
 * The channel as @hashwatch/channels takes it, secrets unsealed for this one call. A needed secret that is
 * missing, or that this server's keys cannot open, is a failed test (502), not a 500 and never an unsigned send.
 */
function unsealForTest(row: ChannelRow, cipher: Cipher, options: NotificationOptions): ChannelConfig {
  try {
    return unsealChannel(row, { cipher, telegramBaseUrl: options.telegramBaseUrl });
  } catch (error) {
    if (error instanceof UnreadableSecretError) {
      throw new AppError('delivery_failed', `the test alert was not sent: the ${error.secret} cannot be opened with this server's SECRETS_KEY; ${REMEDY[error.secret]}`);
    }
    if (error instanceof MissingSecretError) throw new AppError('delivery_failed', `the test alert was not sent: ${error.message}; ${REMEDY[error.secret]}`);
    throw error;
  }
}

/** Reasons from @hashwatch/channels are already redacted; this also removes the exact secrets of this channel. */
function withoutSecrets(text: string, channel: ChannelConfig): string {
  const secret = channel.kind === 'telegram' ? channel.botToken : channel.kind === 'json' ? channel.signingSecret : '';
  return secret ? text.split(secret).join('[redacted]') : text;
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
  const channel = unsealForTest(row, deps.cipher, options);
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

import { SecretsError, type Cipher } from '@hashwatch/secrets';
import { ChannelConfigError } from './channel-adapter';
import type { ChannelConfig } from './channel-config';
import { resolveFormat, type WebhookFormat } from './resolve-format';

/**
 * One notification_channels row as stored, secrets still sealed: the columns the notifier and the gateway
 * both read. Each adds the few it alone reads.
 */
export interface NotificationChannelRow {
  id: string;
  kind: 'webhook' | 'bot';
  url: string | null;
  format: WebhookFormat;
  bot_name: string;
  hashtags: string[] | null;
  accounts: string[] | null;
  source_filter: 'all' | 'hashtags' | 'accounts';
  engagement_alerts: boolean;
  template: string;
  enabled: boolean;
  signing_secret_enc: string | null;
  bot_token_enc: string | null;
  chat_id: string | null;
  disabled_reason: string | null;
  /** A json webhook's own ceiling (CONTRACT 9); null or absent: none. */
  max_per_second?: number | null;
}

/** The columns {@link unsealChannel} reads. */
export type SealedChannel = Pick<
  NotificationChannelRow,
  'kind' | 'url' | 'format' | 'bot_name' | 'template' | 'signing_secret_enc' | 'bot_token_enc' | 'chat_id' | 'max_per_second'
>;

/** A secret a channel's kind needs: json channels sign every request, a Telegram channel sends with its bot's token. */
export type ChannelSecret = 'signing secret' | 'bot token';

/**
 * The row has no value for a secret its kind needs. The channel can never be delivered to until the account
 * sets it again (saving a webhook without its id gives it a new signing secret; a bot token is sent again).
 */
export class MissingSecretError extends ChannelConfigError {
  constructor(readonly secret: ChannelSecret) {
    super(`no ${secret} is stored for this channel`);
    this.name = 'MissingSecretError';
  }
}

/**
 * The stored secret does not open with this process's keys (neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS):
 * during a key rotation, a process whose keys are older than the row's; otherwise a damaged or foreign row.
 * Not a {@link ChannelConfigError}: a process with the right key can still send.
 */
export class UnreadableSecretError extends Error {
  constructor(
    readonly secret: ChannelSecret,
    options?: { cause: unknown },
  ) {
    super(`the ${secret} cannot be opened with this process's SECRETS_KEY (nor SECRETS_KEY_PREVIOUS)`, options);
    this.name = 'UnreadableSecretError';
  }
}

export interface UnsealOptions {
  cipher: Cipher;
  /** `TELEGRAM_API_BASE_URL`; the adapter's default (https://api.telegram.org) when omitted. */
  telegramBaseUrl?: string;
}

function open(cipher: Cipher, sealed: string | null, secret: ChannelSecret): string {
  if (sealed === null || sealed === '') throw new MissingSecretError(secret);
  let opened: string;
  try {
    opened = cipher.decrypt(sealed);
  } catch (error) {
    if (error instanceof SecretsError) throw new UnreadableSecretError(secret, { cause: error });
    throw error;
  }
  if (opened === '') throw new MissingSecretError(secret);
  return opened;
}

/**
 * The channel as the adapters take it, with the secrets its kind needs unsealed, and no other: a Discord or
 * Slack webhook carries its secret in its URL, so its stored signing secret is never opened for a delivery.
 * Keep the value in the caller's local scope: nothing shared between jobs or requests may hold a secret.
 *
 * Throws {@link MissingSecretError} (a {@link ChannelConfigError}: never retried) when a needed secret is not
 * stored, so a json channel is never sent unsigned, and {@link UnreadableSecretError} when it does not open.
 * A missing URL or chat id is left to the adapter, which refuses it with a ChannelConfigError too.
 */
export function unsealChannel(row: SealedChannel, options: UnsealOptions): ChannelConfig {
  const { cipher } = options;
  if (row.kind === 'bot') {
    return {
      kind: 'telegram',
      template: row.template,
      botToken: open(cipher, row.bot_token_enc, 'bot token'),
      chatId: row.chat_id ?? '',
      ...(options.telegramBaseUrl === undefined ? {} : { telegramBaseUrl: options.telegramBaseUrl }),
    };
  }
  const url = row.url ?? '';
  const kind = resolveFormat(row.format, url);
  if (kind === 'json') {
    return { kind, url, template: row.template, signingSecret: open(cipher, row.signing_secret_enc, 'signing secret'), maxPerSecond: row.max_per_second ?? null };
  }
  return { kind, url, template: row.template, botName: row.bot_name };
}

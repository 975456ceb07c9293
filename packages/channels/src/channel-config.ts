/** What every kind of destination has. */
interface ChannelBase {
  /** Empty means the default card. */
  template: string;
}

/** A Discord incoming webhook. Its URL carries the webhook token: never log it. */
export interface DiscordChannelConfig extends ChannelBase {
  kind: 'discord';
  url: string;
  /** Shown as the message's username. */
  botName: string;
}

/** A Slack incoming webhook. Its URL carries the webhook's secret: never log it. */
export interface SlackChannelConfig extends ChannelBase {
  kind: 'slack';
  url: string;
  /** Written into the message body (a webhook cannot set Slack's own sender name). */
  botName: string;
}

/** A generic JSON webhook, every request signed (Standard Webhooks). */
export interface JsonChannelConfig extends ChannelBase {
  kind: 'json';
  url: string;
  /** The channel's `whsec_...` signing secret. */
  signingSecret: string;
  /** The receiver's own ceiling (CONTRACT 9 `max_per_second`); absent or null: as fast as its answers allow. */
  maxPerSecond?: number | null;
}

/** A Telegram chat, written to by the account's own bot (whose name is set in BotFather, not here). */
export interface TelegramChannelConfig extends ChannelBase {
  kind: 'telegram';
  /** Becomes a path segment of the Bot API URL: never log it. */
  botToken: string;
  chatId: string;
  /** `TELEGRAM_API_BASE_URL`, default `https://api.telegram.org`. */
  telegramBaseUrl?: string;
}

/**
 * One destination, passed in per call, one type per kind. Secrets (webhook URL tokens, signing secret, bot
 * token) live only in this value: adapters are stateless and never keep a channel between calls.
 */
export type ChannelConfig = DiscordChannelConfig | SlackChannelConfig | JsonChannelConfig | TelegramChannelConfig;

export type ChannelKind = ChannelConfig['kind'];

/** The config of one kind of channel. */
export type ChannelConfigOf<K extends ChannelKind> = Extract<ChannelConfig, { kind: K }>;

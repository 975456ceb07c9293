import type { ChannelMessage } from './alert';

export type ChannelKind = 'discord' | 'slack' | 'json' | 'telegram';

/**
 * One destination, passed in per call. Secrets (webhook URL tokens, signing secret, bot token) live only in
 * this value: adapters are stateless and never keep a channel between calls.
 */
export interface ChannelConfig {
  kind: ChannelKind;
  /** Webhook address (discord, slack, json). Discord and Slack URLs carry their secret: never log them. */
  url?: string;
  /** Shown as the Discord username; written into the Slack message body. */
  botName: string;
  /** Empty means the default card. */
  template: string;
  /** json: the channel's `whsec_...` secret. */
  signingSecret?: string;
  /** telegram */
  botToken?: string;
  chatId?: string;
  /** telegram: `TELEGRAM_API_BASE_URL`, default `https://api.telegram.org`. */
  telegramBaseUrl?: string;
}

export interface RequestMeta {
  /** Stable across retries of one (channel, feed item): the json format's `webhook-id`. */
  messageId: string;
  /** When this attempt is made: the json format's `webhook-timestamp` (whole seconds). */
  timestamp: Date;
}

/** The exact request to send. `url` may carry a secret (Discord webhook token, Telegram bot token). */
export interface OutgoingRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  /** The exact bytes sent (and, for json, signed). */
  body: string;
}

/** What the target answered. Header names are lower-case; the body is read up to the sender's cap. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The request got no HTTP answer: refused before connecting (SSRF guard, scheme), a network error, a timeout. */
export interface SendFailure {
  failure: 'refused' | 'network' | 'timeout';
  reason: string;
}

export type SendResult = HttpResponse | SendFailure;

export type DeliveryOutcome =
  /** `pauseMs`: the target said its budget is spent (Discord's rate-limit headers); send nothing more for that long. */
  | { outcome: 'delivered'; pauseMs?: number }
  | { outcome: 'retry'; afterMs?: number; reason: string }
  /** Telegram could not parse the formatted text: resend once with `buildPlainRequest`. */
  | { outcome: 'retry-plain'; reason: string }
  | {
      outcome: 'permanent';
      reason: string;
      /** The destination is gone (deleted webhook, blocked bot): stop using the channel. */
      disableChannel?: boolean;
      /** Telegram: the group became a supergroup with this chat id; update the channel and resend. */
      migrateToChatId?: string;
    };

export interface ChannelAdapter {
  /** Pure: the same message, channel and meta always give the same request. */
  buildRequest(message: ChannelMessage, channel: ChannelConfig, meta: RequestMeta): OutgoingRequest;
  /** Only where the platform can reject formatting (Telegram): the same content as unformatted text. */
  buildPlainRequest?(message: ChannelMessage, channel: ChannelConfig, meta: RequestMeta): OutgoingRequest;
  /** Pure: what to do after one attempt. Reasons never carry a secret. */
  interpret(result: SendResult): DeliveryOutcome;
}

/** The channel lacks a field its kind needs, or has one that can never work. Never retried. */
export class ChannelConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChannelConfigError';
  }
}

/** A message this kind of channel never takes (a digest for json). A caller's bug: nothing is sent. */
export class UnsupportedMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedMessageError';
  }
}

export function isSendFailure(result: SendResult): result is SendFailure {
  return 'failure' in result;
}

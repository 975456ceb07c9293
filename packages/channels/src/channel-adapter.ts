import type { ChannelMessage } from './alert';
import type { ChannelConfigOf, ChannelKind } from './channel-config';

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
  /** Telegram could not parse the formatted text: resend at once in the form without markup. */
  | { outcome: 'retry-plain'; reason: string }
  /** The platform refused the media (Telegram or Slack could not fetch the image): resend at once in the form without media. */
  | { outcome: 'retry-without-media'; reason: string }
  | {
      outcome: 'permanent';
      reason: string;
      /** The destination is gone (deleted webhook, blocked bot): stop using the channel. */
      disableChannel?: boolean;
      /** Telegram: the group became a supergroup with this chat id; update the channel and resend. */
      migrateToChatId?: string;
    };

/**
 * The form a message is built in: the full one first, then, only where the platform refused part of it
 * (Telegram, Slack), the same content without that part, so the alert still arrives.
 */
export interface MessageForm {
  /** Formatting (Telegram's HTML); off after the platform could not parse it. */
  markup: boolean;
  /** The post's image sent with the card (Telegram's sendPhoto, Slack's image block); off after the platform refused it. */
  media: boolean;
}

export const FULL_FORM: MessageForm = { markup: true, media: true };

/** One kind of destination: it builds requests for its own kind's config only. */
export interface ChannelAdapter<K extends ChannelKind> {
  /** Pure: the same message, channel, meta and form always give the same request. `form` defaults to {@link FULL_FORM}. */
  buildRequest(message: ChannelMessage, channel: ChannelConfigOf<K>, meta: RequestMeta, form?: MessageForm): OutgoingRequest;
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

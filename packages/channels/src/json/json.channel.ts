import { isDigest, isNotice } from '../alert';
import { ChannelConfigError, UnsupportedMessageError, type ChannelAdapter, type DeliveryOutcome, type HttpResponse } from '../channel-adapter';
import { describeBody, permanent, retry, retryAfterMs, withTransportRules } from '../response-rules';
import { jsonAlertPayload, jsonNoticePayload } from './json-payload';
import { signWebhook, SigningSecretError } from './webhook-signature';

/** Standard Webhooks delivery guidance (standardwebhooks.com): 2xx success, 410 disable, 429/502/504 throttle. */
const THROTTLED = new Set([408, 429, 502, 503, 504]);

function interpretJson(response: HttpResponse): DeliveryOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) return { outcome: 'delivered' };
  const said = describeBody(response.body);
  const reason = `the receiver answered ${status}${said ? `: ${said}` : ''}`;
  if (status === 410) return permanent(reason, true);
  // 408 too: the receiver timed out reading our request, which says nothing about the message.
  if (THROTTLED.has(status) || status >= 500) return retry(reason, retryAfterMs(response.headers));
  return permanent(reason);
}

function signature(secret: string, id: string, timestamp: number, body: string): string {
  try {
    return signWebhook(secret, id, timestamp, body);
  } catch (error) {
    if (error instanceof SigningSecretError) throw new ChannelConfigError(error.message);
    throw error;
  }
}

export const jsonChannel: ChannelAdapter<'json'> = {
  buildRequest(message, channel, meta) {
    if (!channel.url) throw new ChannelConfigError('a json channel needs a webhook url');
    if (!channel.signingSecret) throw new ChannelConfigError('a json channel needs its signing secret');
    // One message per feed item, its webhook-id the item's stable id (docs/decisions/notifications.md: json channels
    // never get digests): a digest would hide items from a receiver that processes and dedupes per item.
    if (isDigest(message)) throw new UnsupportedMessageError('a json channel takes one alert per message, never a digest');
    const body = JSON.stringify(isNotice(message) ? jsonNoticePayload(message) : jsonAlertPayload(message, channel.template));
    const timestamp = Math.floor(meta.timestamp.getTime() / 1000);
    return {
      method: 'POST',
      url: channel.url,
      headers: {
        'content-type': 'application/json',
        'webhook-id': meta.messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(channel.signingSecret, meta.messageId, timestamp, body),
      },
      body,
    };
  },
  interpret: withTransportRules(interpretJson),
};

import { isDigest, isNotice } from '../alert';
import { ChannelConfigError, FULL_FORM, type ChannelAdapter, type DeliveryOutcome, type HttpResponse } from '../channel-adapter';
import { describeBody, permanent, retry, retryAfterMs, withTransportRules } from '../response-rules';
import { slackAlertPayload, slackDigestPayload, slackNoticePayload } from './slack-format';

/**
 * Slack answers incoming-webhook errors as plain-text codes (its incoming-webhook error list). These mean the webhook itself is gone or revoked,
 * so the channel is disabled rather than retried forever.
 */
const DEAD_WEBHOOK_CODES = new Set([
  'channel_not_found',
  'channel_is_archived',
  'no_service',
  'no_active_hooks',
  'invalid_token',
  'team_disabled',
]);

function interpretSlack(response: HttpResponse): DeliveryOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) return { outcome: 'delivered' };
  const code = describeBody(response.body, 100);
  if (status === 429) return retry('Slack rate limit', retryAfterMs(response.headers));
  if (status >= 500) return retry(`Slack answered ${status}${code ? `: ${code}` : ''}`, retryAfterMs(response.headers));
  // Slack answers invalid_blocks when it cannot download an image block's image_url ("downloading image failed",
  // slackapi/python-slack-sdk issue #1782); every other block is built within Block Kit's limits.
  if (status === 400 && code === 'invalid_blocks') return { outcome: 'retry-without-media', reason: `Slack answered 400: ${code}` };
  const dead = status === 404 || status === 410 || DEAD_WEBHOOK_CODES.has(code);
  return permanent(`Slack answered ${status}${code ? `: ${code}` : ''}`, dead);
}

export const slackChannel: ChannelAdapter<'slack'> = {
  buildRequest(message, channel, _meta, form = FULL_FORM) {
    if (!channel.url) throw new ChannelConfigError('a slack channel needs a webhook url');
    const body = isDigest(message)
      ? slackDigestPayload(message, channel.botName)
      : isNotice(message)
        ? slackNoticePayload(message, channel.botName)
        : slackAlertPayload(message, channel.botName, channel.template, form.media);
    return {
      method: 'POST',
      url: channel.url,
      // Slack answers invalid_payload when the body and its content type disagree.
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    };
  },
  interpret: withTransportRules(interpretSlack),
};

import { z } from 'zod';
import { isDigest, isNotice } from '../alert';
import { ChannelConfigError, type ChannelAdapter, type DeliveryOutcome, type HttpResponse } from '../channel-adapter';
import { describeBody, parseJsonBody, permanent, retry, retryAfterMs, secondsToMs, withTransportRules } from '../response-rules';
import { discordAlertPayload, discordDigestPayload, discordNoticePayload } from './discord-format';

// Discord's 429 body (its rate-limit documentation): retry_after is float seconds; error bodies carry message and code.
const discordAnswer = z.object({
  message: z.string().optional(),
  code: z.number().optional(),
  retry_after: z.number().optional(),
  global: z.boolean().optional(),
});

/**
 * Discord asks clients to read the bucket headers on every answer rather than hard-code limits:
 * `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset-After: <seconds, fractional>` means the next message
 * would be a 429. Undefined when the bucket still has room or the headers are absent.
 */
export function bucketPauseMs(headers: Record<string, string>): number | undefined {
  if (headers['x-ratelimit-remaining']?.trim() !== '0') return undefined;
  const resetAfter = headers['x-ratelimit-reset-after']?.trim();
  if (!resetAfter || !/^\d+(\.\d+)?$/.test(resetAfter)) return undefined;
  const ms = secondsToMs(Number(resetAfter));
  return ms > 0 ? ms : undefined;
}

function interpretDiscord(response: HttpResponse): DeliveryOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) {
    const pauseMs = bucketPauseMs(response.headers);
    return pauseMs === undefined ? { outcome: 'delivered' } : { outcome: 'delivered', pauseMs };
  }
  const answer = discordAnswer.safeParse(parseJsonBody(response.body));
  const body = answer.success ? answer.data : {};
  const said = body.message ? `${body.message}${body.code !== undefined ? ` (code ${body.code})` : ''}` : describeBody(response.body);
  if (status === 429) {
    const afterMs = body.retry_after !== undefined ? secondsToMs(body.retry_after) : retryAfterMs(response.headers);
    return retry(`Discord rate limit${body.global ? ' (global)' : ''}`, afterMs);
  }
  // Discord: "if a webhook returns 404, stop using it"; repeated attempts get the sender restricted.
  if (status === 404) return permanent(`Discord webhook not found (deleted): ${said}`, true);
  // A wrong webhook token never starts working, and invalid requests count toward Discord's IP ban.
  if (status === 401) return permanent(`Discord rejected the webhook token: ${said}`, true);
  if (status >= 500) return retry(`Discord answered ${status}`, retryAfterMs(response.headers));
  return permanent(`Discord answered ${status}: ${said}`);
}

/** `wait=true`: Discord then answers only once the message is saved, and reports a failure to save it. */
function executeUrl(webhookUrl: string | undefined): string {
  if (!webhookUrl) throw new ChannelConfigError('a discord channel needs a webhook url');
  let url: URL;
  try {
    url = new URL(webhookUrl);
  } catch {
    throw new ChannelConfigError('the discord webhook url is not a valid URL');
  }
  url.searchParams.set('wait', 'true');
  return url.toString();
}

export const discordChannel: ChannelAdapter<'discord'> = {
  buildRequest(message, channel) {
    const url = executeUrl(channel.url);
    const body = isDigest(message)
      ? discordDigestPayload(message, channel.botName)
      : isNotice(message)
        ? discordNoticePayload(message, channel.botName)
        : discordAlertPayload(message, channel.botName, channel.template);
    return { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  },
  interpret: withTransportRules(interpretDiscord),
};

import { z } from 'zod';
import { isDigest, isNotice, type ChannelMessage } from '../alert';
import {
  ChannelConfigError,
  type ChannelAdapter,
  type DeliveryOutcome,
  type HttpResponse,
  type OutgoingRequest,
  type TelegramChannelConfig,
} from '../channel-adapter';
import { describeBody, parseJsonBody, permanent, retry, retryAfterMs, safeReason, secondsToMs, withTransportRules } from '../response-rules';
import { telegramAlertText, telegramDigestText, telegramNoticeText, telegramPlainAlertText, type TelegramText } from './telegram-format';

export const DEFAULT_TELEGRAM_BASE_URL = 'https://api.telegram.org';

// Bot API answer (Telegram's "Making requests"): {ok, result} or {ok:false, error_code, description, parameters}.
const telegramAnswer = z.object({
  ok: z.boolean(),
  description: z.string().optional(),
  parameters: z
    .object({ retry_after: z.number().optional(), migrate_to_chat_id: z.union([z.number(), z.string()]).optional() })
    .optional(),
});

const BOT_TOKEN = /^\d+:[A-Za-z0-9_-]+$/;

function sendMessageRequest(channel: TelegramChannelConfig, message: TelegramText, preview: boolean): OutgoingRequest {
  const { botToken, chatId } = channel;
  // The token becomes a path segment: anything but the BotFather shape could point the request elsewhere.
  if (!botToken || !BOT_TOKEN.test(botToken)) throw new ChannelConfigError('the telegram bot token is missing or malformed');
  if (!chatId) throw new ChannelConfigError('a telegram channel needs a chat id');
  const base = (channel.telegramBaseUrl ?? DEFAULT_TELEGRAM_BASE_URL).replace(/\/+$/, '');
  const body = {
    chat_id: chatId,
    text: message.text,
    ...(message.html ? { parse_mode: 'HTML' } : {}),
    link_preview_options: { is_disabled: !preview },
  };
  return {
    method: 'POST',
    url: `${base}/bot${botToken}/sendMessage`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

function interpretTelegram(response: HttpResponse): DeliveryOutcome {
  const parsed = telegramAnswer.safeParse(parseJsonBody(response.body));
  const answer = parsed.success ? parsed.data : undefined;
  const { status } = response;
  if (status >= 200 && status < 300 && answer?.ok !== false) return { outcome: 'delivered' };
  const description = answer?.description ? safeReason(answer.description) : describeBody(response.body);
  const said = `Telegram answered ${status}: ${description}`;
  const migrateTo = answer?.parameters?.migrate_to_chat_id;
  if (migrateTo !== undefined) {
    return {
      outcome: 'permanent',
      reason: safeReason(`the group became a supergroup with chat id ${migrateTo}; update the chat id and resend`),
      migrateToChatId: String(migrateTo),
    };
  }
  const retryAfter = answer?.parameters?.retry_after;
  if (status === 429 || retryAfter !== undefined) {
    return retry(said, retryAfter !== undefined ? secondsToMs(retryAfter) : retryAfterMs(response.headers));
  }
  if (status === 400 && /can't parse entities/i.test(description)) return { outcome: 'retry-plain', reason: said };
  if (status === 400 && /chat not found/i.test(description)) return permanent(said, true);
  // 403: blocked by the user, kicked from the group, user deactivated. 401/404: the token was revoked.
  if (status === 401 || status === 403 || status === 404) return permanent(said, true);
  if (status >= 500) return retry(said, retryAfterMs(response.headers));
  return permanent(said);
}

function text(message: ChannelMessage, channel: TelegramChannelConfig, plain: boolean): TelegramText {
  if (isDigest(message)) return telegramDigestText(message, !plain);
  if (isNotice(message)) return telegramNoticeText(message, !plain);
  return plain ? telegramPlainAlertText(message, channel.template) : telegramAlertText(message, channel.template);
}

/** Telegram alone can reject formatting, so it alone has `buildPlainRequest`. */
export const telegramChannel: Required<ChannelAdapter<'telegram'>> = {
  buildRequest(message, channel) {
    // A digest lists up to ten links; a preview of only the first one would single it out. A notice has none.
    return sendMessageRequest(channel, text(message, channel, false), !isDigest(message) && !isNotice(message));
  },
  buildPlainRequest(message, channel) {
    return sendMessageRequest(channel, text(message, channel, true), !isDigest(message) && !isNotice(message));
  },
  interpret: withTransportRules(interpretTelegram),
};

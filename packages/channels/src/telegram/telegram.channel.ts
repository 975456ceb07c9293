import { z } from 'zod';
import { isDigest, isNotice, type ChannelMessage } from '../alert';
import {
  ChannelConfigError,
  FULL_FORM,
  type ChannelAdapter,
  type DeliveryOutcome,
  type HttpResponse,
  type MessageForm,
  type OutgoingRequest,
} from '../channel-adapter';
import type { TelegramChannelConfig } from '../channel-config';
import { describeBody, parseJsonBody, permanent, retry, retryAfterMs, safeReason, secondsToMs, withTransportRules } from '../response-rules';
import { telegramAlert, telegramDigestText, telegramNoticeText, type TelegramAlert } from './telegram-format';

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

function botRequest(channel: TelegramChannelConfig, method: 'sendMessage' | 'sendPhoto', body: Record<string, unknown>): OutgoingRequest {
  const { botToken, chatId } = channel;
  // The token becomes a path segment: anything but the BotFather shape could point the request elsewhere.
  if (!botToken || !BOT_TOKEN.test(botToken)) throw new ChannelConfigError('the telegram bot token is missing or malformed');
  if (!chatId) throw new ChannelConfigError('a telegram channel needs a chat id');
  const base = (channel.telegramBaseUrl ?? DEFAULT_TELEGRAM_BASE_URL).replace(/\/+$/, '');
  return {
    method: 'POST',
    url: `${base}/bot${botToken}/${method}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ chat_id: chatId, ...body }),
  };
}

/**
 * sendPhoto (the photo by URL, which Telegram fetches itself) with the card as its caption, or sendMessage.
 * `preview` false turns link previews off; a text alert previews its post's first link.
 */
function alertRequest(channel: TelegramChannelConfig, message: TelegramAlert, preview: boolean): OutgoingRequest {
  const parseMode = message.html ? { parse_mode: 'HTML' } : {};
  if (message.photo !== undefined) return botRequest(channel, 'sendPhoto', { photo: message.photo, caption: message.text, ...parseMode });
  const linkPreview = !preview ? { is_disabled: true } : message.previewUrl ? { is_disabled: false, url: message.previewUrl } : { is_disabled: false };
  return botRequest(channel, 'sendMessage', { text: message.text, ...parseMode, link_preview_options: linkPreview });
}

// Telegram's answers when it cannot use a photo URL: not a URL it accepts, nothing it could download, or not
// an image at that address (the last as reported in tdlib/telegram-bot-api issue #782).
const PHOTO_REFUSED = /wrong file identifier\/HTTP URL specified|failed to get HTTP URL content|wrong type of the web page content/i;
// Never expected (captions are cut to 1,024), but a text message has room for the whole card.
const CAPTION_TOO_LONG = /message caption is too long/i;

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
  if (status === 400 && (PHOTO_REFUSED.test(description) || CAPTION_TOO_LONG.test(description))) {
    return { outcome: 'retry-without-media', reason: said };
  }
  if (status === 400 && /chat not found/i.test(description)) return permanent(said, true);
  // 403: blocked by the user, kicked from the group, user deactivated. 401/404: the token was revoked.
  if (status === 401 || status === 403 || status === 404) return permanent(said, true);
  if (status >= 500) return retry(said, retryAfterMs(response.headers));
  return permanent(said);
}

function request(message: ChannelMessage, channel: TelegramChannelConfig, form: MessageForm): OutgoingRequest {
  // A digest lists up to ten links; a preview of only the first one would single it out. A notice has none.
  if (isDigest(message)) return alertRequest(channel, telegramDigestText(message, form.markup), false);
  if (isNotice(message)) return alertRequest(channel, telegramNoticeText(message, form.markup), false);
  return alertRequest(channel, telegramAlert(message, channel.template, form), true);
}

/** Telegram refuses parts of a message (HTML it cannot parse, a photo it cannot fetch), so its requests have fallback forms. */
export const telegramChannel: ChannelAdapter<'telegram'> = {
  buildRequest(message, channel, _meta, form = FULL_FORM) {
    return request(message, channel, form);
  },
  interpret: withTransportRules(interpretTelegram),
};

import { verifyWebhookSignature } from '@hashwatch/channels';
import { parseTelegramHtml } from '@hashwatch/channels/testing';
import { jsonReply as json, startReceiver, type Receiver, type Reply } from '@hashwatch/testing';

/**
 * Standard Webhooks receiver (webhook-id, webhook-timestamp, webhook-signature `v1,<base64 HMAC-SHA256>`):
 * accepts with 204 a request signed with one of `secrets()` (one per channel pointing here), refuses anything
 * else with 401.
 */
export function startJsonReceiver(secrets: () => string | string[]): Promise<Receiver> {
  return startReceiver((request) => {
    const candidates = [secrets()].flat();
    const valid = candidates.some((secret) => secret !== '' && verifyWebhookSignature(secret, request.headers, request.body).valid);
    return valid ? { status: 204 } : json(401, { error: 'invalid_signature' });
  });
}

/**
 * Discord's execute-webhook endpoint (`/api/webhooks/{id}/{token}`): one live webhook; any other path is 404
 * Unknown Webhook.
 */
export async function startDiscordReceiver(): Promise<Receiver & { webhookUrl: string; deletedWebhookUrl: string }> {
  const live = '/api/webhooks/111/live-token';
  const receiver = await startReceiver((request) => {
    const path = request.path.split('?')[0];
    if (path !== live) return json(404, { message: 'Unknown Webhook', code: 10015 });
    if (!request.json || (!request.json.content && !request.json.embeds)) return json(400, { message: 'Cannot send an empty message', code: 50006 });
    return json(200, { id: String(Date.now()), content: request.json.content ?? '' });
  });
  return Object.assign(receiver, { webhookUrl: `${receiver.origin}${live}`, deletedWebhookUrl: `${receiver.origin}/api/webhooks/222/deleted` });
}

/** A Discord 429 as Discord sends it: JSON retry_after in seconds plus Retry-After. */
export function discordRateLimit(retryAfterSeconds: number): Reply {
  return json(429, { message: 'You are being rate limited.', retry_after: retryAfterSeconds, global: false }, { 'retry-after': String(Math.ceil(retryAfterSeconds)) });
}

// Bot API limits, counted after entity parsing: message text 1-4096 characters, photo caption 0-1024.
const TELEGRAM_TEXT_LIMIT = 4096;
const TELEGRAM_CAPTION_LIMIT = 1024;

const telegramFailure = (status: number, description: string): Reply => json(status, { ok: false, error_code: status, description });

/**
 * Telegram Bot API's sendMessage (`text`) and sendPhoto (`photo` by URL, `caption`), answered as the Bot API
 * documents: {ok, result: Message} or {ok:false, error_code, description, parameters}. The photo is not fetched
 * (the posts here name addresses nobody serves); an address that is not http(s) is refused as Telegram does.
 */
export async function startTelegramReceiver(token: string): Promise<Receiver> {
  return startReceiver((request) => {
    const route = /^\/bot([^/]+)\/([^/]+)$/.exec(request.path.split('?')[0] ?? '');
    if (!route || route[1] !== token) return telegramFailure(401, 'Unauthorized');
    if (!/^(sendMessage|sendPhoto)$/i.test(route[2]!)) return telegramFailure(404, 'Not Found');
    const photoMethod = route[2]!.toLowerCase() === 'sendphoto';
    const body = request.json ?? {};
    const content = photoMethod ? (body.caption ?? '') : body.text;
    if (typeof content !== 'string' || (!photoMethod && content === '')) return telegramFailure(400, 'Bad Request: message text is empty');
    const photo = body.photo;
    if (photoMethod && (typeof photo !== 'string' || photo === '')) return telegramFailure(400, 'Bad Request: there is no photo in the request');
    if (photoMethod && !/^https?:\/\/\S+$/i.test(photo as string)) return telegramFailure(400, 'Bad Request: wrong file identifier/HTTP URL specified');
    // HTML mode is parsed as the Bot API does: a message it cannot parse is refused, never shown half-formatted.
    const parsed = body.parse_mode === 'HTML' ? parseTelegramHtml(content) : { ok: true as const, text: content };
    if (!parsed.ok) return telegramFailure(400, parsed.error);
    const chat = { id: Number(body.chat_id) };
    if (!photoMethod) {
      if (parsed.text.length > TELEGRAM_TEXT_LIMIT) return telegramFailure(400, 'Bad Request: message is too long');
      return json(200, { ok: true, result: { message_id: 1, chat, text: parsed.text } });
    }
    if (parsed.text.length > TELEGRAM_CAPTION_LIMIT) return telegramFailure(400, 'Bad Request: message caption is too long');
    const sizes = [{ file_id: 'photo-1', file_unique_id: 'unique-1', width: 1200, height: 675 }];
    return json(200, { ok: true, result: { message_id: 1, chat, photo: sizes, ...(parsed.text ? { caption: parsed.text } : {}) } });
  });
}

/**
 * A Slack incoming webhook: `ok` as text/html on success, plain-text error codes otherwise (no_text,
 * invalid_blocks), as Slack documents them.
 */
export async function startSlackReceiver(): Promise<Receiver & { webhookUrl: string }> {
  const live = '/services/T000/B000/live';
  const error = (status: number, code: string): Reply => ({ status, headers: { 'content-type': 'text/plain' }, body: code });
  const receiver = await startReceiver((request) => {
    if (request.path !== live) return error(404, 'no_service');
    const body = request.json as { text?: string; blocks?: { type: string; text?: { text: string } }[] } | undefined;
    if (!body) return error(400, 'invalid_payload');
    if (!body.text && !body.blocks?.length) return error(400, 'no_text');
    if ((body.blocks?.length ?? 0) > 50 || body.blocks?.some((block) => block.type === 'section' && (block.text?.text.length ?? 0) > 3000)) {
      return error(400, 'invalid_blocks');
    }
    return { status: 200, headers: { 'content-type': 'text/html' }, body: 'ok' };
  });
  return Object.assign(receiver, { webhookUrl: `${receiver.origin}${live}` });
}

export function telegramFlood(retryAfterSeconds: number): Reply {
  return json(429, { ok: false, error_code: 429, description: `Too Many Requests: retry after ${retryAfterSeconds}`, parameters: { retry_after: retryAfterSeconds } });
}


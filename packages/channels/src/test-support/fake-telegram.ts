import { jsonReply, startLocalServer, type LocalServer, type Reply } from './local-server';
import { parseTelegramHtml } from './telegram-html';

export interface FakeTelegram extends LocalServer {
  /** Messages as recipients see them: the parsed text (a photo's parsed caption), and the photo's URL. */
  delivered: { chatId: string; text: string; html: boolean; photo?: string }[];
  /** Answer the next request with 429 and this retry_after. */
  floodNext(retryAfter: number): void;
  /** Answer every HTML request with a parse error, as after a change in Telegram's parser. */
  rejectHtml(reject: boolean): void;
}

const failure = (status: number, description: string, parameters?: object): Reply =>
  jsonReply(status, { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) });

// Bot API limits, counted after entity parsing: message text 1–4096 characters, photo caption 0–1024.
const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;

interface Body {
  chat_id?: unknown;
  text?: unknown;
  parse_mode?: unknown;
  photo?: unknown;
  caption?: unknown;
}

/**
 * Fetches a photo given by URL as Telegram does before sending it: an address it cannot read is "failed to get
 * HTTP URL content", one that answers something other than an image is "wrong type of the web page content".
 */
async function fetchPhoto(photo: string): Promise<Reply | null> {
  if (!/^https?:\/\/\S+$/i.test(photo)) return failure(400, 'Bad Request: wrong file identifier/HTTP URL specified');
  try {
    const response = await fetch(photo, { redirect: 'error', signal: AbortSignal.timeout(5000) });
    await response.arrayBuffer();
    if (!response.ok) return failure(400, 'Bad Request: failed to get HTTP URL content');
    if (!(response.headers.get('content-type') ?? '').startsWith('image/')) return failure(400, 'Bad Request: wrong type of the web page content');
    return null;
  } catch {
    return failure(400, 'Bad Request: failed to get HTTP URL content');
  }
}

/**
 * The Bot API's sendMessage and sendPhoto (photo by URL) on 127.0.0.1, answering as the Bot API documents:
 * {ok, result} or {ok:false, error_code, description, parameters}.
 */
export async function startFakeTelegram(options: {
  token: string;
  chats: string[];
  blocked?: string[];
  migrated?: Record<string, number>;
}): Promise<FakeTelegram> {
  const delivered: FakeTelegram['delivered'] = [];
  let floodSeconds: number | undefined;
  const state = { rejectHtml: false };
  const server = await startLocalServer(async (request) => {
    const route = /^\/bot([^/]+)\/(sendMessage|sendPhoto)$/i.exec(request.path);
    if (!route) return failure(404, 'Not Found');
    if (route[1] !== options.token) return failure(401, 'Unauthorized');
    const photoMethod = route[2]!.toLowerCase() === 'sendphoto';
    if (floodSeconds !== undefined) {
      const retryAfter = floodSeconds;
      floodSeconds = undefined;
      return failure(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
    }
    let body: Body;
    try {
      body = JSON.parse(request.body) as Body;
    } catch {
      return failure(400, 'Bad Request: invalid JSON');
    }
    const chatId = String(body.chat_id ?? '');
    if (options.migrated?.[chatId] !== undefined) {
      return failure(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: options.migrated[chatId] });
    }
    if (!options.chats.includes(chatId)) return failure(400, 'Bad Request: chat not found');
    if (options.blocked?.includes(chatId)) return failure(403, 'Forbidden: bot was blocked by the user');

    const content = photoMethod ? (body.caption ?? '') : body.text;
    if (typeof content !== 'string' || (!photoMethod && content.trim() === '')) return failure(400, 'Bad Request: message text is empty');
    if (photoMethod && (typeof body.photo !== 'string' || body.photo === '')) return failure(400, 'Bad Request: there is no photo in the request');
    const html = body.parse_mode === 'HTML';
    if (html && state.rejectHtml) return failure(400, "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0");
    const parsed = html ? parseTelegramHtml(content) : { ok: true as const, text: content };
    if (!parsed.ok) return failure(400, parsed.error);
    if (!photoMethod) {
      if (parsed.text.length > TEXT_LIMIT) return failure(400, 'Bad Request: message is too long');
      delivered.push({ chatId, text: parsed.text, html });
      return jsonReply(200, { ok: true, result: { message_id: delivered.length, chat: { id: Number(chatId) }, text: parsed.text } });
    }
    if (parsed.text.length > CAPTION_LIMIT) return failure(400, 'Bad Request: message caption is too long');
    const photo = body.photo as string;
    const refused = await fetchPhoto(photo);
    if (refused) return refused;
    delivered.push({ chatId, text: parsed.text, html, photo });
    const sizes = [{ file_id: `photo-${delivered.length}`, file_unique_id: `unique-${delivered.length}`, width: 1200, height: 675 }];
    return jsonReply(200, {
      ok: true,
      result: { message_id: delivered.length, chat: { id: Number(chatId) }, photo: sizes, ...(parsed.text ? { caption: parsed.text } : {}) },
    });
  });
  return Object.assign(server, {
    delivered,
    floodNext(retryAfter: number) {
      floodSeconds = retryAfter;
    },
    rejectHtml(reject: boolean) {
      state.rejectHtml = reject;
    },
  });
}

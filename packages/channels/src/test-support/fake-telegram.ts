import { jsonReply, startLocalServer, type LocalServer, type Reply } from './local-server';
import { parseTelegramHtml } from './telegram-html';

export interface FakeTelegram extends LocalServer {
  /** Messages as recipients see them: the parsed text. */
  delivered: { chatId: string; text: string; html: boolean }[];
  /** Answer the next request with 429 and this retry_after. */
  floodNext(retryAfter: number): void;
  /** Answer every HTML request with a parse error, as after a change in Telegram's parser. */
  rejectHtml(reject: boolean): void;
}

const failure = (status: number, description: string, parameters?: object): Reply =>
  jsonReply(status, { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) });

/**
 * The Bot API's sendMessage on 127.0.0.1, answering as the Bot API documents: {ok, result} or
 * {ok:false, error_code, description, parameters}.
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
  const server = await startLocalServer((request) => {
    const route = /^\/bot([^/]+)\/sendMessage$/i.exec(request.path);
    if (!route) return failure(404, 'Not Found');
    if (route[1] !== options.token) return failure(401, 'Unauthorized');
    if (floodSeconds !== undefined) {
      const retryAfter = floodSeconds;
      floodSeconds = undefined;
      return failure(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
    }
    let body: { chat_id?: unknown; text?: unknown; parse_mode?: unknown };
    try {
      body = JSON.parse(request.body) as typeof body;
    } catch {
      return failure(400, 'Bad Request: invalid JSON');
    }
    const chatId = String(body.chat_id ?? '');
    if (options.migrated?.[chatId] !== undefined) {
      return failure(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: options.migrated[chatId] });
    }
    if (!options.chats.includes(chatId)) return failure(400, 'Bad Request: chat not found');
    if (options.blocked?.includes(chatId)) return failure(403, 'Forbidden: bot was blocked by the user');
    if (typeof body.text !== 'string' || body.text.trim() === '') return failure(400, 'Bad Request: message text is empty');
    const html = body.parse_mode === 'HTML';
    if (html && state.rejectHtml) return failure(400, "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0");
    const parsed = html ? parseTelegramHtml(body.text) : { ok: true as const, text: body.text };
    if (!parsed.ok) return failure(400, parsed.error);
    if (parsed.text.length > 4096) return failure(400, 'Bad Request: message is too long');
    delivered.push({ chatId, text: parsed.text, html });
    return jsonReply(200, { ok: true, result: { message_id: delivered.length, chat: { id: Number(chatId) }, text: parsed.text } });
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

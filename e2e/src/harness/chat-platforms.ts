import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { parseTelegramHtml } from '@hashwatch/channels/testing';

/** What the checks read of each platform's message body. */
export const discordSchema = z.object({
  username: z.string(),
  embeds: z.array(z.object({ title: z.string(), url: z.string().optional(), description: z.string(), image: z.object({ url: z.string() }).optional() })),
});
export const slackSchema = z.object({
  text: z.string(),
  blocks: z.array(
    z.union([
      z.object({ type: z.literal('section'), text: z.object({ type: z.string(), text: z.string() }) }),
      z.object({ type: z.literal('image'), image_url: z.string(), alt_text: z.string() }),
      z.object({ type: z.literal('context'), elements: z.array(z.object({ text: z.string() })) }),
    ]),
  ),
});
export const telegramSchema = z.object({
  chat_id: z.string(),
  parse_mode: z.literal('HTML'),
  text: z.string().optional(),
  caption: z.string().optional(),
  photo: z.string().optional(),
});


export type Platform = 'discord' | 'slack' | 'telegram';

/** One message a platform took, as it arrived. */
export interface ChatMessage {
  platform: Platform;
  /** The Bot API method for Telegram (`sendMessage`, `sendPhoto`); the request path's last segment otherwise. */
  method: string;
  body: string;
  json: Record<string, unknown>;
  at: number;
}

// Bot API limits, counted after entity parsing: message text 1-4096 characters, photo caption 0-1024.
const TELEGRAM_TEXT_LIMIT = 4096;
const TELEGRAM_CAPTION_LIMIT = 1024;
const DISCORD_PATH = '/api/webhooks/1/e2e';
const SLACK_PATH = '/services/T1/B1/e2e';

type Answer = { status: number; type: string; body: string };

const jsonAnswer = (status: number, value: unknown): Answer => ({ status, type: 'application/json', body: JSON.stringify(value) });
const telegramFailure = (status: number, description: string): Answer => jsonAnswer(status, { ok: false, error_code: status, description });

function parseJson(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Discord's, Slack's and Telegram's endpoints in one local server, each answering as its platform does and
 * refusing what it would refuse: Discord's execute-webhook (200 with the message under `?wait=true`, else 204;
 * 400 for an empty message), a Slack incoming webhook (200 `ok`; `no_text`), and the Bot API's sendMessage
 * (`text`) and sendPhoto (`photo` by URL, `caption`) for one bot token (`{ok: true, result: Message}`; HTML that
 * Telegram cannot parse, a text or caption over its limit, a photo that is not an http(s) address are refused
 * as Telegram refuses them). Every message taken is recorded.
 */
export class ChatPlatforms {
  readonly received: ChatMessage[] = [];
  private server: Server | undefined;
  origin = '';

  constructor(readonly botToken: string) {}

  get discordUrl(): string {
    return `${this.origin}${DISCORD_PATH}`;
  }

  get slackUrl(): string {
    return `${this.origin}${SLACK_PATH}`;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const url = new URL(request.url ?? '/', 'http://platforms.invalid');
        const answer = this.answer(url, body);
        response.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', () => resolve()));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private answer(url: URL, body: string): Answer {
    const json = parseJson(body);
    const take = (platform: Platform, method: string) => this.received.push({ platform, method, body, json: json ?? {}, at: Date.now() });
    if (url.pathname === DISCORD_PATH) {
      if (!json || (!json.content && !(Array.isArray(json.embeds) && json.embeds.length > 0))) {
        return jsonAnswer(400, { message: 'Cannot send an empty message', code: 50006 });
      }
      take('discord', 'execute');
      if (url.searchParams.get('wait') !== 'true') return { status: 204, type: 'text/plain', body: '' };
      return jsonAnswer(200, { id: String(Date.now()), type: 0, content: json.content ?? '', embeds: json.embeds ?? [] });
    }
    if (url.pathname === SLACK_PATH) {
      if (!json) return { status: 400, type: 'text/plain', body: 'invalid_payload' };
      if (!json.text && !(Array.isArray(json.blocks) && json.blocks.length > 0)) return { status: 400, type: 'text/plain', body: 'no_text' };
      take('slack', 'incoming-webhook');
      return { status: 200, type: 'text/html', body: 'ok' };
    }
    const bot = /^\/bot([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (!bot) return { status: 404, type: 'text/plain', body: 'not found' };
    if (bot[1] !== this.botToken) return telegramFailure(401, 'Unauthorized');
    // Bot API method names are case-insensitive.
    const method = ['sendMessage', 'sendPhoto'].find((name) => name.toLowerCase() === bot[2]!.toLowerCase());
    if (!method) return telegramFailure(404, 'Not Found');
    if (!json) return telegramFailure(400, 'Bad Request: invalid JSON');
    const photo = method === 'sendPhoto';
    const content = photo ? (json.caption ?? '') : json.text;
    if (typeof content !== 'string' || (!photo && content === '')) return telegramFailure(400, 'Bad Request: message text is empty');
    if (photo && (typeof json.photo !== 'string' || !/^https?:\/\/\S+$/i.test(json.photo))) {
      return telegramFailure(400, 'Bad Request: wrong file identifier/HTTP URL specified');
    }
    const parsed = json.parse_mode === 'HTML' ? parseTelegramHtml(content) : { ok: true as const, text: content };
    if (!parsed.ok) return telegramFailure(400, parsed.error);
    if (parsed.text.length > (photo ? TELEGRAM_CAPTION_LIMIT : TELEGRAM_TEXT_LIMIT)) {
      return telegramFailure(400, photo ? 'Bad Request: message caption is too long' : 'Bad Request: message is too long');
    }
    take('telegram', method);
    const message = { message_id: this.received.length, date: Math.floor(Date.now() / 1000), chat: { id: Number(json.chat_id), type: 'supergroup' } };
    if (!photo) return jsonAnswer(200, { ok: true, result: { ...message, text: parsed.text } });
    const sizes = [{ file_id: `photo-${message.message_id}`, file_unique_id: `unique-${message.message_id}`, width: 1280, height: 720, file_size: 1 }];
    return jsonAnswer(200, { ok: true, result: { ...message, photo: sizes, ...(parsed.text ? { caption: parsed.text } : {}) } });
  }

  /** Messages a platform took, oldest first. */
  of(platform: Platform): ChatMessage[] {
    return this.received.filter((message) => message.platform === platform);
  }

  /** Messages each platform got that mention `text`. */
  mentioning(text: string): Record<Platform, number> {
    const count = (platform: Platform) => this.of(platform).filter((message) => message.body.includes(text)).length;
    return { discord: count('discord'), slack: count('slack'), telegram: count('telegram') };
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A link as a chat platform shows it: its label, and where it goes. */
export interface ShownLink {
  label: string;
  url: string;
}

/** Text as a recipient sees it, and the links in it. */
export interface ShownText {
  text: string;
  links: ShownLink[];
}

/**
 * Discord markdown as Discord shows it: a backslash-escaped character stands for itself, `[label](url)` is a
 * link showing its label. (Bold and the like are left in; what matters is that the post's own characters show
 * as written.)
 */
export function discordShown(markdown: string): ShownText {
  const links: ShownLink[] = [];
  let text = '';
  const literal = (source: string) => source.replace(/\\([^A-Za-z0-9\s])/g, '$1');
  for (let at = 0; at < markdown.length; ) {
    const char = markdown[at]!;
    if (char === '\\' && at + 1 < markdown.length && /[^A-Za-z0-9\s]/.test(markdown[at + 1]!)) {
      text += markdown[at + 1];
      at += 2;
      continue;
    }
    if (char === '[') {
      const link = /^\[((?:\\.|[^\\\]])*)\]\(([^)\s]*)\)/.exec(markdown.slice(at));
      if (link) {
        const label = literal(link[1]!);
        links.push({ label, url: link[2]! });
        text += label;
        at += link[0].length;
        continue;
      }
    }
    text += char;
    at += 1;
  }
  return { text, links };
}

/** Slack mrkdwn as Slack shows it: `<url|label>` is a link showing its label; `&amp;`, `&lt;`, `&gt;` are its three escapes. */
export function slackShown(mrkdwn: string): ShownText {
  const decode = (source: string) => source.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const links: ShownLink[] = [];
  const text = mrkdwn.replace(/<([^|>]*)\|([^>]*)>/g, (_whole, url: string, label: string) => {
    links.push({ label: decode(label), url: decode(url) });
    return label;
  });
  return { text: decode(text), links };
}

/** Telegram HTML as Telegram shows it (its own parser's rules), with the `<a href>` links; throws where Telegram would refuse it. */
export function telegramShown(html: string): ShownText {
  const parsed = parseTelegramHtml(html);
  if (!parsed.ok) throw new Error(parsed.error);
  const decode = (source: string) => {
    const shown = parseTelegramHtml(source);
    return shown.ok ? shown.text : source;
  };
  const links = [...html.matchAll(/<a href="([^"]*)">([\s\S]*?)<\/a>/g)].map((match) => ({ url: decode(match[1]!), label: decode(match[2]!) }));
  return { text: parsed.text, links };
}

/**
 * What breaks the rule of HTML and mrkdwn that every literal `&` is written as an escape and nothing is escaped
 * twice; `entities` are the platform's escapes (`amp`, `lt`, `gt`…). Empty when the markup keeps it.
 */
export function escapedOnce(markup: string, entities: readonly string[]): string[] {
  const names = entities.join('|');
  const around = (at: number) => JSON.stringify(markup.slice(Math.max(0, at - 15), at + 15));
  const problems: string[] = [];
  for (const match of markup.matchAll(new RegExp(`&(?!(${names});)`, 'g'))) problems.push(`a bare & in ${around(match.index)}`);
  for (const match of markup.matchAll(new RegExp(`&amp;(${names});`, 'g'))) problems.push(`escaped twice in ${around(match.index)}`);
  return problems;
}

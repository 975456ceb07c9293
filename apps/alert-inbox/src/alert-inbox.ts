import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '@hashwatch/channels';
import type { Logger } from '@hashwatch/logger';
import type { InboxAlert } from './inbox-alert';
import { inboxPage } from './inbox-page';
import { createMailInbox, type InboxMail } from './mail-inbox';

export interface AlertInboxOptions {
  logger: Logger;
  /** `ALERT_INBOX_SECRET`: when set, json alerts must carry a valid Standard Webhooks signature (401 otherwise). */
  secret?: string;
  /** Alerts kept in memory, newest first, and as many mails. Default 200. */
  capacity?: number;
  /** Largest mail accepted over SMTP, in bytes. Default 1 MiB. */
  maxMailBytes?: number;
}

export interface AlertInbox {
  readonly alerts: readonly InboxAlert[];
  readonly mails: readonly InboxMail[];
  readonly server: Server;
  /** Starts the HTTP side: the page, `/alerts`, `/mail` and the webhook endpoints. */
  listen(port: number, host?: string): Promise<{ port: number; url: string }>;
  /** Starts the SMTP side (no auth, no TLS); mail it accepts is listed at `/mail` and on the page. */
  listenSmtp(port: number, host?: string): Promise<{ port: number }>;
  /** Stops both sides. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_SUMMARY = 300;

type JsonPost = { source?: string; author?: string; text?: string; url?: string; kind?: string };

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}

function describePost(post: JsonPost): string {
  return `${post.source ?? '?'} ${post.author ?? ''}${post.kind ? ` ${post.kind}` : ''}: ${post.text ?? ''} ${post.url ?? ''}`;
}

/** What arrived, in one line, whatever the format. */
function summarize(path: string, body: Record<string, unknown>): Pick<InboxAlert, 'format' | 'type' | 'summary'> {
  if (/^\/bot[^/]+\/sendMessage$/i.test(path)) {
    return { format: 'telegram', type: 'message', summary: oneLine(`chat ${String(body.chat_id)}: ${String(body.text ?? '')}`) };
  }
  // A post with a photo: the card is the photo's caption.
  if (/^\/bot[^/]+\/sendPhoto$/i.test(path)) {
    return { format: 'telegram', type: 'photo', summary: oneLine(`chat ${String(body.chat_id)}: [photo ${String(body.photo ?? '')}] ${String(body.caption ?? '')}`) };
  }
  if (typeof body.type === 'string' && (body.post || body.posts)) {
    if (body.type === 'digest') {
      const posts = (body.posts as JsonPost[] | undefined) ?? [];
      return { format: 'json', type: 'digest', summary: oneLine(`digest of ${posts.length}: ${posts.map((p) => `${p.source ?? '?'} ${p.author ?? ''}`).join(', ')}`) };
    }
    return { format: 'json', type: body.type, summary: oneLine(describePost(body.post as JsonPost)) };
  }
  if (Array.isArray(body.embeds) || typeof body.username === 'string') {
    const embed = (body.embeds as { title?: string; description?: string }[] | undefined)?.[0];
    const text = typeof body.content === 'string' ? body.content : `${embed?.title ?? ''} ${embed?.description ?? ''}`;
    return { format: 'discord', type: 'message', summary: oneLine(text) };
  }
  if (typeof body.text === 'string') return { format: 'slack', type: 'message', summary: oneLine(body.text) };
  return { format: 'unknown', type: 'unknown', summary: oneLine(JSON.stringify(body)) };
}

/** The Message the Bot API answers with: sendMessage's has the text, sendPhoto's the photo's sizes and caption. */
function telegramMessage(type: string, body: Record<string, unknown>): Record<string, unknown> {
  const message = { message_id: Date.now() % 2_147_483_647, chat: { id: body.chat_id } };
  if (type !== 'photo') return { ...message, text: body.text };
  const photo = [{ file_id: `photo-${message.message_id}`, file_unique_id: `unique-${message.message_id}`, width: 1200, height: 675 }];
  return { ...message, photo, ...(typeof body.caption === 'string' && body.caption !== '' ? { caption: body.caption } : {}) };
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, status: number, body: string, type = 'application/json'): void {
  response.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' });
  response.end(body);
}

/**
 * The demo's alert destination: accepts alerts POSTed in any Hashwatch format (json webhooks, Discord, Slack,
 * and Telegram's sendMessage and sendPhoto, so it can also play the Bot API) and mail over SMTP, logs one line per alert or
 * mail, keeps the last ones in memory and lists them at `/` (HTML), `/alerts` and `/mail` (JSON).
 */
export function createAlertInbox(options: AlertInboxOptions): AlertInbox {
  const capacity = options.capacity ?? 200;
  const alerts: InboxAlert[] = [];
  const { logger } = options;
  const mailInbox = createMailInbox({ logger, capacity, maxBytes: options.maxMailBytes ?? MAX_BODY_BYTES });

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? '/', 'http://inbox.invalid').pathname;
    if (request.method === 'GET' && path === '/') return send(response, 200, inboxPage(alerts, mailInbox.mails, capacity), 'text/html');
    if (request.method === 'GET' && path === '/alerts') return send(response, 200, JSON.stringify({ data: alerts }));
    if (request.method === 'GET' && path === '/mail') return send(response, 200, JSON.stringify({ data: mailInbox.mails }));
    if (request.method === 'GET' && path === '/healthz') return send(response, 200, JSON.stringify({ status: 'ok' }));
    if (request.method !== 'POST') return send(response, 405, JSON.stringify({ error: { code: 'method_not_allowed', message: 'POST alerts here' } }));

    const raw = await readBody(request);
    if (raw === undefined) return send(response, 413, JSON.stringify({ error: { code: 'payload_too_large', message: 'over 1 MiB' } }));
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return send(response, 400, JSON.stringify({ error: { code: 'invalid_request', message: 'the body is not JSON' } }));
    }
    const webhookId = typeof request.headers['webhook-id'] === 'string' ? request.headers['webhook-id'] : null;
    let verified: boolean | null = null;
    if (options.secret && webhookId !== null) {
      verified = verifyWebhookSignature(options.secret, request.headers, raw).valid;
      if (!verified) {
        logger.warn('alert refused: bad signature', { webhookId });
        return send(response, 401, JSON.stringify({ error: { code: 'invalid_signature', message: 'webhook-signature does not verify with ALERT_INBOX_SECRET' } }));
      }
    }
    const alert: InboxAlert = { receivedAt: new Date().toISOString(), ...summarize(path, body), webhookId, verified, body };
    alerts.unshift(alert);
    alerts.length = Math.min(alerts.length, capacity);
    logger.info('alert received', { alert: alert.summary, format: alert.format, type: alert.type, webhookId });
    if (alert.format === 'telegram') return send(response, 200, JSON.stringify({ ok: true, result: telegramMessage(alert.type, body) }));
    if (alert.format === 'slack') return send(response, 200, 'ok', 'text/plain');
    response.writeHead(204);
    response.end();
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error('inbox request failed', { error });
      if (!response.headersSent) send(response, 500, JSON.stringify({ error: { code: 'internal_error', message: 'internal error' } }));
    });
  });

  return {
    alerts,
    mails: mailInbox.mails,
    server,
    listen(port, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const chosen = (server.address() as AddressInfo).port;
          resolve({ port: chosen, url: `http://${host}:${chosen}` });
        });
      });
    },
    listenSmtp: (port, host = '127.0.0.1') => mailInbox.listen(port, host),
    close: async () => {
      await Promise.all([
        mailInbox.close(),
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
      ]);
    },
  };
}

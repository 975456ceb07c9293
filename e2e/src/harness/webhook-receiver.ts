import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

const jsonBodySchema = z.object({ type: z.string(), post: z.object({ id: z.string().nullable() }).passthrough(), text: z.string() });

/** One request a receiver got, as it arrived. */
export interface ReceivedRequest {
  at: number;
  status: number;
  webhookId: string | null;
  timestamp: string | null;
  signature: string | null;
  body: string;
  /** `post.id` of a json payload; null when the body is not one. */
  itemId: string | null;
}

/** Standard Webhooks v1: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed by the base64 after `whsec_`. */
export function verifyStandardSignature(secret: string, request: Pick<ReceivedRequest, 'webhookId' | 'timestamp' | 'signature' | 'body'>): boolean {
  if (!secret.startsWith('whsec_') || !request.webhookId || !request.timestamp || !request.signature) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${request.webhookId}.${request.timestamp}.${request.body}`).digest();
  return request.signature.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' ? value : null;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function itemIdOf(body: string): string | null {
  try {
    return jsonBodySchema.parse(JSON.parse(body)).post.id;
  } catch {
    return null;
  }
}

/**
 * A webhook target in the test process: records every request (headers, exact body, arrival time), answers 204,
 * or 500 while `failUntil` is in the future. Counting is by `webhook-id` and by feed item id (`post.id`).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private failUntilMs = 0;
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      void readBody(request).then((body) => {
        const status = Date.now() < this.failUntilMs ? 500 : 204;
        this.requests.push({
          at: Date.now(),
          status,
          webhookId: header(request, 'webhook-id'),
          timestamp: header(request, 'webhook-timestamp'),
          signature: header(request, 'webhook-signature'),
          body,
          itemId: itemIdOf(body),
        });
        response.statusCode = status;
        response.end(status === 500 ? 'receiver told to fail' : undefined);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  /** Answers 500 to every request until `untilMs` (epoch ms). */
  failUntil(untilMs: number): void {
    this.failUntilMs = untilMs;
  }

  /** Requests answered 2xx: deliveries the target accepted. */
  accepted(): ReceivedRequest[] {
    return this.requests.filter((request) => request.status < 300);
  }

  /** First accepted arrival time per feed item id. */
  firstArrivals(): Map<string, number> {
    const first = new Map<string, number>();
    for (const request of this.accepted()) {
      if (request.itemId !== null && !first.has(request.itemId)) first.set(request.itemId, request.at);
    }
    return first;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

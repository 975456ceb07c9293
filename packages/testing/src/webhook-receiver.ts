import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact body, as the bytes arrived. */
  body: string;
  /** Parsed JSON body, or undefined. */
  json: Record<string, unknown> | undefined;
  at: number;
  /** The status it was answered with; 0 while it is held. */
  status: number;
  /** The `webhook-id` header (Standard Webhooks), or null. */
  webhookId: string | null;
  /** Requests the receiver held unanswered when this one arrived, itself included: the sender's concurrency. */
  inFlight: number;
  /** When it was answered (0 while it is held). */
  answeredAt: number;
  /** `post.id` of a json alert payload; null when the body is not one. */
  itemId: string | null;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer this long after the request arrived (a receiver that takes its time). */
  delayMs?: number;
}

/** What the receiver does with one request: answer, or hold it open until the test lets go (or closes). */
export type Action = Reply | 'hold';

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every request, in arrival order, including those answered with an error. */
  received: Received[];
  /** Requests answered with a 2xx: what the destination accepted. */
  accepted: Received[];
  /** Replies used before the default one, first in first out. */
  script(...actions: Action[]): void;
  /** Resolves when `count` requests have been accepted, or rejects after `timeoutMs`. */
  waitForAccepted(count: number, timeoutMs?: number): Promise<void>;
  waitForReceived(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

function parseJson(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The json channel's alert payload is `{type, text, post: {id, ...}}`; anything else carries no item. */
function itemIdOf(json: Record<string, unknown> | undefined): string | null {
  const post = json?.post as { id?: unknown } | undefined;
  if (typeof json?.type !== 'string' || typeof json.text !== 'string' || typeof post !== 'object' || post === null) return null;
  return typeof post.id === 'string' ? post.id : null;
}

const headerOf = (headers: IncomingHttpHeaders, name: string): string | null => {
  const value = headers[name];
  return typeof value === 'string' ? value : null;
};

/**
 * Standard Webhooks v1, checked independently of the sender's code: `webhook-signature` holds
 * `v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed by the base64 after `whsec_`.
 */
export function verifyStandardSignature(secret: string, request: Pick<Received, 'headers' | 'body'>): boolean {
  const [id, timestamp, signature] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => headerOf(request.headers, name));
  if (!secret.startsWith('whsec_') || !id || !timestamp || !signature) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest();
  return signature.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * A real HTTP server on 127.0.0.1 playing a destination; `respond` is its protocol, `script` its moods. A 'hold'
 * keeps the request open unanswered (a tarpit) until the receiver is closed.
 */
export async function startReceiver(respond: (request: Received) => Action): Promise<Receiver> {
  const received: Received[] = [];
  const accepted: Received[] = [];
  const script: Action[] = [];
  const held = new Set<ServerResponse>();
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((waiter) => waiter());

  let unanswered = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const json = parseJson(body);
      unanswered += 1;
      const request: Received = {
        path: req.url ?? '', headers: req.headers, body, json, at: Date.now(), status: 0, webhookId: headerOf(req.headers, 'webhook-id'),
        itemId: itemIdOf(json), inFlight: unanswered, answeredAt: 0,
      };
      received.push(request);
      const action = script.shift() ?? respond(request);
      if (action === 'hold') {
        held.add(res);
        notify();
        return;
      }
      const answer = () => {
        unanswered -= 1;
        request.status = action.status;
        request.answeredAt = Date.now();
        if (action.status >= 200 && action.status < 300) accepted.push(request);
        notify();
        res.writeHead(action.status, action.headers);
        res.end(action.body ?? '');
      };
      if (action.delayMs) {
        // Received now, answered later: a wait for received requests sees it at once.
        notify();
        setTimeout(answer, action.delayMs);
      } else {
        answer();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const waitFor = (list: Received[], count: number, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (list.length < count) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`waited ${timeoutMs} ms for ${count} requests, got ${list.length}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    accepted,
    script: (...actions) => script.push(...actions),
    waitForAccepted: (count, timeoutMs = 20_000) => waitFor(accepted, count, timeoutMs),
    waitForReceived: (count, timeoutMs = 20_000) => waitFor(received, count, timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A webhook target that answers 204, or 500 while `failUntil` is in the future, or as `behave` says, at
 * `<origin>/hook`. Counting is by `webhook-id` and by feed item id (`post.id`).
 */
export class WebhookReceiver {
  private received: Received[] = [];
  private failUntilMs = 0;
  private behaviour: ((request: Received, index: number) => Reply) | undefined;
  private receiver: Receiver | undefined;
  url = '';

  async start(): Promise<this> {
    this.receiver = await startReceiver((request) => {
      if (this.behaviour) return this.behaviour(request, this.received.length - 1);
      return Date.now() < this.failUntilMs ? { status: 500, body: 'receiver told to fail' } : { status: 204 };
    });
    this.received = this.receiver.received;
    this.url = `${this.receiver.origin}/hook`;
    return this;
  }

  /** Every request, in arrival order, with the status it was answered with. */
  get requests(): Received[] {
    return this.received;
  }

  /** Answers 500 to every request until `untilMs` (epoch ms). */
  failUntil(untilMs: number): void {
    this.failUntilMs = untilMs;
  }

  /** Answers each request (the `index`-th received, from 0) as `reply` says, from now on. */
  behave(reply: (request: Received, index: number) => Reply): void {
    this.behaviour = reply;
  }

  /** Requests answered 2xx: deliveries the target accepted. */
  accepted(): Received[] {
    return this.requests.filter((request) => request.status >= 200 && request.status < 300);
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
    const receiver = this.receiver;
    this.receiver = undefined;
    await receiver?.close();
  }
}

// The HTTP side of the local Stripe server, as https://docs.stripe.com/api describes Stripe's: form-encoded
// bodies with bracket notation (`line_items[0][price]=…`, read with qs like Stripe's own servers' clients write
// them), `Authorization: Bearer sk_…`, JSON answers, errors as `{error: {type, code, message, param}}`, a
// `Request-Id` on every answer, and `Idempotency-Key` honoured on POST: a key seen before with the same request
// answers the saved result again; with different parameters, 400 `idempotency_error`.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import qs from 'qs';
import { StripeApiError, stripeId } from './stripe-objects';

/** A request the server received, parsed as Stripe parses it, with the status it answered. */
export interface ReceivedStripeRequest {
  method: string;
  /** The path without the query, e.g. `/v1/checkout/sessions`. */
  path: string;
  query: Record<string, unknown>;
  /** The form body, brackets unfolded: `line_items[0][price]=p` is `{line_items: [{price: 'p'}]}`. */
  form: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  idempotencyKey: string | null;
  status: number;
  /** True when the answer was a saved idempotent result. */
  replayed: boolean;
}

/** A failure to play for requests that match (every request, when neither `method` nor `path` is given). */
export interface FaultRule {
  method?: string;
  /** A path, which also matches the paths below it (`/v1/subscriptions` matches `/v1/subscriptions/sub_…`), or a pattern. */
  path?: string | RegExp;
  /** The status to answer with (an `api_error` body). Without it the request is only delayed, then served. */
  status?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** How many matching requests fail; unlimited by default. */
  times?: number;
}

export interface ApiCall {
  /** The path's captured parts, e.g. the id in `/v1/subscriptions/:id`. */
  params: string[];
  form: Record<string, unknown>;
  requestId: string;
  idempotencyKey: string | null;
}

export interface ApiRoute {
  method: 'GET' | 'POST' | 'DELETE';
  path: RegExp;
  handle(call: ApiCall): unknown;
}

/** A browser page of the server (the hosted checkout and portal); no API key, no faults. */
export interface PageRoute {
  method: 'GET' | 'POST';
  path: RegExp;
  handle(params: string[]): { status: number; headers?: Record<string, string>; body: string };
}

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

interface SavedResult {
  fingerprint: string;
  status: number;
  body: unknown;
}

export interface StripeHttpServer {
  origin: string;
  close(): Promise<void>;
}

export class StripeHttp {
  readonly requests: ReceivedStripeRequest[] = [];
  private readonly saved = new Map<string, SavedResult>();
  private faults: { rule: FaultRule; left: number }[] = [];

  constructor(
    private readonly secretKey: string,
    private readonly routes: readonly ApiRoute[],
    private readonly pages: readonly PageRoute[],
  ) {}

  fail(rule: FaultRule): void {
    this.faults.push({ rule, left: rule.times ?? Number.POSITIVE_INFINITY });
  }

  clearFaults(): void {
    this.faults = [];
  }

  async listen(): Promise<StripeHttpServer> {
    const server: Server = createServer((req, res) => {
      this.serve(req, res).catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      origin: `http://127.0.0.1:${port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://local');
    const method = (req.method ?? 'GET').toUpperCase();
    const page = this.pages.map((route) => ({ route, match: route.method === method ? route.path.exec(url.pathname) : null })).find((found) => found.match);
    if (page?.match) {
      const answer = page.route.handle(page.match.slice(1));
      res.writeHead(answer.status, { 'content-type': 'text/html; charset=utf-8', ...answer.headers });
      res.end(answer.body);
      return;
    }
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const idempotencyKey = header(req.headers, 'idempotency-key');
    const received: ReceivedStripeRequest = {
      method,
      path: url.pathname,
      query: qs.parse(url.search.slice(1)),
      form: qs.parse(rawBody, { depth: 10, arrayLimit: 100 }),
      headers: req.headers,
      idempotencyKey,
      status: 0,
      replayed: false,
    };
    this.requests.push(received);
    const answer = await this.answer(received, rawBody);
    received.status = answer.status;
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.body, null, 2));
  }

  private async answer(received: ReceivedStripeRequest, rawBody: string): Promise<Answer> {
    const requestId = stripeId('req', 14);
    const headers: Record<string, string> = { 'request-id': requestId };
    const version = header(received.headers, 'stripe-version');
    if (version) headers['stripe-version'] = version;
    const fault = this.takeFault(received);
    if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (fault?.status !== undefined) {
      const error = new StripeApiError(fault.status, 'api_error', 'An error occurred with our connection to Stripe (a fault the local Stripe server was told to play).');
      return { status: fault.status, body: error.body(), headers };
    }
    const unauthorized = this.checkKey(received.headers);
    if (unauthorized) return { status: 401, body: unauthorized.body(), headers };
    const savedKey = received.method === 'POST' && received.idempotencyKey ? `${this.secretKey} ${received.idempotencyKey}` : null;
    const fingerprint = `${received.method} ${received.path} ${rawBody}`;
    const saved = savedKey ? this.saved.get(savedKey) : undefined;
    if (saved) {
      if (saved.fingerprint !== fingerprint) {
        const error = new StripeApiError(400, 'idempotency_error', `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${received.idempotencyKey}' if you meant to execute a different request.`);
        return { status: 400, body: error.body(), headers };
      }
      received.replayed = true;
      return { status: saved.status, body: saved.body, headers: { ...headers, 'idempotent-replayed': 'true', 'idempotency-key': received.idempotencyKey ?? '' } };
    }
    const result = this.route(received, requestId);
    // Stripe saves a result once the endpoint began executing; a request that failed validation is not saved.
    if (savedKey && (result.status < 400 || result.status >= 500)) this.saved.set(savedKey, { fingerprint, status: result.status, body: result.body });
    if (received.idempotencyKey) headers['idempotency-key'] = received.idempotencyKey;
    return { ...result, headers };
  }

  private route(received: ReceivedStripeRequest, requestId: string): { status: number; body: unknown } {
    for (const route of this.routes) {
      const match = route.method === received.method ? route.path.exec(received.path) : null;
      if (!match) continue;
      try {
        const form = received.method === 'GET' ? received.query : received.form;
        // A copy: the answer (and the idempotent result saved from it) is the object as it was at this request.
        return { status: 200, body: structuredClone(route.handle({ params: match.slice(1).map(decodeURIComponent), form, requestId, idempotencyKey: received.idempotencyKey })) };
      } catch (error) {
        if (error instanceof StripeApiError) return { status: error.status, body: error.body() };
        const message = error instanceof Error ? error.message : String(error);
        return { status: 500, body: new StripeApiError(500, 'api_error', `The local Stripe server failed: ${message}`).body() };
      }
    }
    const error = new StripeApiError(404, 'invalid_request_error', `Unrecognized request URL (${received.method}: ${received.path}).`);
    return { status: 404, body: error.body() };
  }

  private takeFault(received: ReceivedStripeRequest): FaultRule | undefined {
    const found = this.faults.find(({ rule, left }) => left > 0 && (!rule.method || rule.method.toUpperCase() === received.method) && pathMatches(rule.path, received.path));
    if (!found) return undefined;
    found.left -= 1;
    return found.rule;
  }

  private checkKey(headers: IncomingHttpHeaders): StripeApiError | null {
    const authorization = header(headers, 'authorization') ?? '';
    const [scheme, credential = ''] = authorization.split(' ', 2);
    // Bearer as the SDK sends it; Basic with the key as the user name, as `curl -u sk_test_…:` sends it.
    const key = scheme === 'Bearer' ? credential : scheme === 'Basic' ? Buffer.from(credential, 'base64').toString('utf8').split(':')[0] : '';
    if (!key) {
      return new StripeApiError(401, 'invalid_request_error', "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').");
    }
    if (key !== this.secretKey) {
      // Stripe names a wrong key only by its first and last characters.
      const masked = key.length > 16 ? `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}` : '*'.repeat(key.length);
      return new StripeApiError(401, 'invalid_request_error', `Invalid API Key provided: ${masked}`);
    }
    return null;
  }
}

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function pathMatches(rule: string | RegExp | undefined, path: string): boolean {
  if (rule === undefined) return true;
  if (rule instanceof RegExp) return rule.test(path);
  return path === rule || path.startsWith(`${rule}/`);
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redact, type Logger } from '@hashwatch/logger';
import { METRICS_UNAUTHORIZED, metricsScrapeAllowed } from './metrics-token';

export interface HealthServerOptions {
  /** 0 picks a free port (tests); read the chosen one from the returned `port`. */
  port: number;
  /** Defaults to every interface, so a container's probes can reach it. */
  host?: string;
  /** Readiness checks by name (redis, database...): each resolves when its dependency answers. */
  checks: Record<string, () => Promise<unknown>>;
  /** Prometheus text exposition for GET /metrics; without it /metrics answers 404. */
  metrics?: () => string | Promise<string>;
  /** METRICS_TOKEN: when set, GET /metrics needs `Authorization: Bearer <token>` (401 otherwise); unset, it is open. */
  metricsToken?: string;
  logger: Logger;
  /** Longest a readiness check may take before it counts as failed. Default 2000 ms. */
  checkTimeoutMs?: number;
  /** True once the process is stopping: /healthz and /readyz then answer 503. */
  isShuttingDown?: () => boolean;
}

export interface HealthServer {
  readonly port: number;
  /** Stops listening and waits for requests in flight (bounded by the check timeout). Idempotent. */
  close(): Promise<void>;
}

export type CheckResult = { status: 'ok' } | { status: 'failed'; message: string };

const JSON_TYPE = 'application/json; charset=utf-8';
// Prometheus text exposition format 0.0.4.
const METRICS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const MAX_MESSAGE_LENGTH = 120;

class CheckTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = 'CheckTimeoutError';
  }
}

/** One short line, with credentials in URLs and secret-shaped strings removed: probes are not access-controlled. */
function shortMessage(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const firstLine = raw.split('\n', 1)[0] ?? '';
  const withoutCredentials = firstLine.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1[redacted]@');
  const text = String(redact(withoutCredentials)).trim() || 'check failed';
  return text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : text;
}

async function runCheck(check: () => Promise<unknown>, timeoutMs: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError(timeoutMs)), timeoutMs);
  });
  try {
    // then(): a check that throws synchronously fails like one that rejects.
    await Promise.race([Promise.resolve().then(check), timeout]);
    return { status: 'ok' };
  } catch (error) {
    return { status: 'failed', message: shortMessage(error) };
  } finally {
    clearTimeout(timer);
  }
}

function send(response: ServerResponse, status: number, body: string, contentType = JSON_TYPE): void {
  response.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, JSON.stringify(body));
}

function sendError(response: ServerResponse, status: number, code: string, message: string): void {
  sendJson(response, status, { error: { code, message } });
}

/**
 * Runs every readiness check with its timeout. Probes run every few seconds, so a check is logged only when its
 * outcome changes (`lastStatus` carries the outcomes between calls).
 */
async function runChecks(options: HealthServerOptions, lastStatus: Map<string, CheckResult['status']>): Promise<{ ready: boolean; body: unknown }> {
  const { checks, logger } = options;
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => runCheck(checks[name] as () => Promise<unknown>, options.checkTimeoutMs ?? 2_000)));
  const byName: Record<string, CheckResult> = {};
  const failing: string[] = [];
  names.forEach((name, index) => {
    const result = results[index] as CheckResult;
    byName[name] = result;
    if (result.status === 'failed') failing.push(name);
    if (lastStatus.get(name) !== result.status) {
      if (result.status === 'failed') logger.warn('readiness check failed', { check: name, reason: result.message });
      else if (lastStatus.has(name)) logger.info('readiness check recovered', { check: name });
      lastStatus.set(name, result.status);
    }
  });
  return failing.length === 0
    ? { ready: true, body: { status: 'ready', checks: byName } }
    : { ready: false, body: { status: 'not_ready', checks: byName, failing } };
}

/** Listens and answers the port chosen (0 picks a free one). */
async function listen(server: Server, port: number, host: string | undefined): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Starts the small HTTP server a worker exposes on HEALTH_PORT: GET /healthz (liveness), GET /readyz
 * (runs every check with a timeout) and GET /metrics (Prometheus text). Resolves once listening.
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const { metrics, logger } = options;
  let closing: Promise<void> | undefined;
  const stopping = () => closing !== undefined || (options.isShuttingDown?.() ?? false);
  const lastStatus = new Map<string, CheckResult['status']>();
  const readiness = async (): Promise<{ ready: boolean; body: unknown }> =>
    stopping() ? { ready: false, body: { status: 'shutting_down' } } : runChecks(options, lastStatus);

  const routes: Record<string, (response: ServerResponse, request: IncomingMessage) => Promise<void>> = {
    '/healthz': async (response) => {
      if (stopping()) sendJson(response, 503, { status: 'shutting_down' });
      else sendJson(response, 200, { status: 'ok' });
    },
    '/readyz': async (response) => {
      const { ready, body } = await readiness();
      sendJson(response, ready ? 200 : 503, body);
    },
    '/metrics': async (response, request) => {
      if (!metrics) return sendError(response, 404, 'not_found', 'no metrics here');
      if (!metricsScrapeAllowed(request.headers, options.metricsToken)) {
        response.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        return sendJson(response, 401, METRICS_UNAUTHORIZED);
      }
      try {
        send(response, 200, await metrics(), METRICS_TYPE);
      } catch (error) {
        logger.error('metrics failed', { error });
        sendError(response, 500, 'internal_error', 'metrics unavailable');
      }
    },
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? '/', 'http://health.invalid').pathname;
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (!route) return sendError(response, 404, 'not_found', 'no such endpoint');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      return sendError(response, 405, 'method_not_allowed', 'use GET');
    }
    if (closing) response.setHeader('Connection', 'close');
    await route(response, request);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error('health request failed', { error });
      if (!response.headersSent) sendError(response, 500, 'internal_error', 'internal error');
      else response.destroy();
    });
  });
  // A probe port: nothing legitimate sends slow or large requests here.
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;

  const port = await listen(server, options.port, options.host);
  server.on('error', (error) => logger.error('health server error', { error }));

  return {
    port,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets with no request in flight would otherwise hold close() open.
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

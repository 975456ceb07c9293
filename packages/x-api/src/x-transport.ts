import type { IncomingMessage } from 'node:http';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import type { Cluster, Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '@hashwatch/logger';
import { interpretError, readRateHeaders } from './interpret-error';
import { RateBudget } from './rate-budget';
import type { XEndpointName } from './x-endpoints';
import { XInvalidRequestError, XInvalidResponseError, XRateLimitedError, XUnavailableError } from './x-errors';
import type { clientOptionsSchema } from './x-request.schema';

/** The client's settings, as its options schema parsed them. */
export type XClientSettings = z.output<typeof clientOptionsSchema>;

// X's reset is whole seconds and clocks drift a little: a waiting client retries just after it.
const RESET_MARGIN_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A POST's JSON body; calls without one are GETs. */
export interface XRequestBody {
  json: unknown;
}

/** How the client reaches X: one logical call at a time, within the rate budget every replica shares. */
export interface XTransport {
  readonly budget: RateBudget;
  /** One logical call: budget check, request, budget update, typed error or validated body. */
  call<T>(endpoint: XEndpointName, path: string, params: URLSearchParams, bearer: string, parse: (body: unknown) => T, body?: XRequestBody): Promise<T>;
  /**
   * Opens a streaming GET within the budget: resolves with the 200's body stream once its headers arrive
   * (within `timeoutMs`), or throws the typed error of any other answer. `signal` aborts it at any time.
   */
  openStream(endpoint: XEndpointName, path: string, params: URLSearchParams, bearer: string, signal: AbortSignal): Promise<IncomingMessage>;
}

// An error body on a streaming connect is read at most this far.
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Reads a short JSON error body off a stream; undefined when it is not JSON. */
async function readErrorBody(stream: IncomingMessage): Promise<unknown> {
  let text = '';
  try {
    for await (const chunk of stream) {
      text += String(chunk);
      if (text.length > MAX_ERROR_BODY_BYTES) break;
    }
  } catch {
    // A body cut short is read as far as it came.
  } finally {
    stream.destroy();
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The input checked before anything leaves: a bad one is an XInvalidRequestError naming the field. */
export function validate<T>(endpoint: XEndpointName, schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new XInvalidRequestError({ endpoint, status: null }, issue ? `${issue.path.join('.') || 'input'} ${issue.message}` : 'invalid input');
}

/** A body parser: X's answer checked against `schema` (an XInvalidResponseError when it does not parse), then normalised. */
export function parser<S extends z.ZodType, T>(endpoint: XEndpointName, schema: S, normalize: (body: z.infer<S>) => T): (body: unknown) => T {
  return (body) => {
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new XInvalidResponseError({ endpoint, status: 200 }, issue ? `${issue.path.join('.')}: ${issue.message}` : 'body does not parse');
    }
    return normalize(parsed.data);
  };
}

/**
 * Hears every HTTP request the client makes, retries included: `status` is null when X gave no answer (network
 * error, timeout), `remaining` is X's x-rate-limit-remaining when the answer carried one. Metrics hang here.
 */
export interface XRequestObserver {
  request(endpoint: XEndpointName, status: number | null, remaining: number | null): void;
}

function remainingOf(headers: Record<string, unknown>): number | null {
  const raw = headers['x-rate-limit-remaining'];
  return typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : null;
}

type Guarded = <T>(what: string, endpoint: XEndpointName, action: () => Promise<T>, fallback: T) => Promise<T>;

// Redis trouble must not stop detection: without the budget the client still calls X, and X's own 429s
// still stop it.
function budgetGuard(log: Logger): Guarded {
  return async (what, endpoint, action, fallback) => {
    try {
      return await action();
    } catch (error) {
      log.warn('x rate budget unavailable', { what, endpoint, error: (error as Error).message });
      return fallback;
    }
  };
}

export function createXTransport(settings: XClientSettings, redis: Redis | Cluster, logger: Logger, observer?: XRequestObserver): XTransport {
  const log = logger.child({ component: 'x-api' });
  const budget = new RateBudget(redis, settings.keyPrefix);
  const http: AxiosInstance = axios.create({
    baseURL: settings.baseUrl.replace(/\/+$/, ''),
    timeout: settings.timeoutMs,
    validateStatus: () => true,
    headers: { 'User-Agent': 'hashwatch-x-api/1', Accept: 'application/json' },
    transitional: { clarifyTimeoutError: true },
  });

  const guarded = budgetGuard(log);

  async function send(endpoint: XEndpointName, path: string, params: URLSearchParams, bearer: string, body?: XRequestBody): Promise<AxiosResponse> {
    const started = Date.now();
    let response: AxiosResponse;
    try {
      const headers = { Authorization: `Bearer ${bearer}` };
      response = body
        ? await http.post(path, body.json, { params, headers: { ...headers, 'Content-Type': 'application/json' } })
        : await http.get(path, { params, headers });
    } catch (error) {
      const timedOut = axios.isAxiosError(error) && (error.code === 'ETIMEDOUT' || error.code === 'ECONNABORTED');
      log.warn('x request failed', { endpoint, reason: timedOut ? 'timeout' : 'network', error: (error as Error).message });
      observer?.request(endpoint, null, null);
      throw new XUnavailableError({ endpoint, status: null }, timedOut ? 'timeout' : 'network', (error as Error).message);
    }
    log.debug('x request', { endpoint, status: response.status, ms: Date.now() - started });
    observer?.request(endpoint, response.status, remainingOf(response.headers as Record<string, unknown>));
    return response;
  }

  /** Waits for the reset in 'wait' mode when it falls before the deadline; throws XRateLimitedError otherwise. */
  async function waitOrThrow(endpoint: XEndpointName, resetSeconds: number, upstream: boolean, deadline: number): Promise<void> {
    const resumeAt = resetSeconds * 1000 + RESET_MARGIN_MS;
    log.warn('x rate limited', { endpoint, resetAt: new Date(resetSeconds * 1000).toISOString(), upstream, mode: settings.onRateLimited });
    if (settings.onRateLimited === 'wait' && resumeAt <= deadline) {
      await sleep(Math.max(0, resumeAt - Date.now()));
      return;
    }
    throw new XRateLimitedError({ endpoint, status: upstream ? 429 : null }, new Date(resetSeconds * 1000), upstream);
  }

  async function call<T>(endpoint: XEndpointName, path: string, params: URLSearchParams, bearer: string, parse: (body: unknown) => T, body?: XRequestBody): Promise<T> {
    const deadline = Date.now() + settings.maxRateLimitWaitMs;
    for (;;) {
      const blockedUntil = await guarded('reserve', endpoint, () => budget.reserve(endpoint, Date.now()), null);
      if (blockedUntil !== null) {
        await waitOrThrow(endpoint, blockedUntil, false, deadline);
        continue;
      }
      const response = await send(endpoint, path, params, bearer, body);
      const rate = readRateHeaders(response.headers as Record<string, unknown>);
      if (response.status === 200) {
        if (rate) await guarded('record', endpoint, () => budget.record(endpoint, rate, Date.now()), undefined);
        return parse(response.data);
      }
      const fallbackReset = Math.ceil(Date.now() / 1000) + settings.rateLimitFallbackSeconds;
      const error = interpretError(endpoint, response.status, response.data, rate, new Date(fallbackReset * 1000));
      if (error instanceof XRateLimitedError && error.kind === 'rate_limit') {
        // A reset already past (clock skew) still blocks a second, so a waiting client never spins on 429s.
        const reset = Math.max(error.resetAt.getTime() / 1000, Math.ceil(Date.now() / 1000) + 1);
        const settled = await guarded('exhaust', endpoint, () => budget.exhaust(endpoint, reset), reset);
        await waitOrThrow(endpoint, settled, true, deadline);
        continue;
      }
      if (rate) await guarded('record', endpoint, () => budget.record(endpoint, rate, Date.now()), undefined);
      log.warn('x request refused', { endpoint, status: response.status, code: error.code });
      throw error;
    }
  }

  const openStream: XTransport['openStream'] = (...args) => openStreamWith({ http, budget, guarded, log, observer, settings }, ...args);

  return { budget, call, openStream };
}

/** What a streaming connect needs of the transport. */
interface StreamContext {
  http: AxiosInstance;
  budget: RateBudget;
  guarded: Guarded;
  log: Logger;
  observer: XRequestObserver | undefined;
  settings: XClientSettings;
}

async function openStreamWith(
  { http, budget, guarded, log, observer, settings }: StreamContext,
  endpoint: XEndpointName,
  path: string,
  params: URLSearchParams,
  bearer: string,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const blockedUntil = await guarded('reserve', endpoint, () => budget.reserve(endpoint, Date.now()), null);
  // A stream's caller reconnects on its own schedule: a known empty window is thrown, never waited out here.
  if (blockedUntil !== null) throw new XRateLimitedError({ endpoint, status: null }, new Date(blockedUntil * 1000), false);
  // The connect gets timeoutMs for its headers; after that the stream's own read timeout governs.
  const connecting = new AbortController();
  const timer = setTimeout(() => connecting.abort(), settings.timeoutMs);
  const cancel = () => connecting.abort();
  signal.addEventListener('abort', cancel, { once: true });
  if (signal.aborted) connecting.abort();
  let response: AxiosResponse<IncomingMessage>;
  try {
    response = await http.get<IncomingMessage>(path, {
      params,
      headers: { Authorization: `Bearer ${bearer}` },
      responseType: 'stream',
      timeout: 0,
      signal: connecting.signal,
      // The stream is read line by line; axios must not buffer or decompress it.
      decompress: false,
    });
  } catch (error) {
    // The caller's own abort is no failure of X's: logged at info, not counted as an unanswered request.
    if (signal.aborted) {
      log.info('x stream connect aborted', { endpoint });
      throw new XUnavailableError({ endpoint, status: null }, 'network', 'aborted');
    }
    const reason = connecting.signal.aborted ? 'timeout' : 'network';
    log.warn('x stream connect failed', { endpoint, reason, error: (error as Error).message });
    observer?.request(endpoint, null, null);
    throw new XUnavailableError({ endpoint, status: null }, reason, (error as Error).message);
  } finally {
    clearTimeout(timer);
  }
  // From here the caller's signal governs the open stream.
  signal.removeEventListener('abort', cancel);
  const rate = readRateHeaders(response.headers as Record<string, unknown>);
  observer?.request(endpoint, response.status, remainingOf(response.headers as Record<string, unknown>));
  if (response.status === 200) {
    if (rate) await guarded('record', endpoint, () => budget.record(endpoint, rate, Date.now()), undefined);
    return response.data;
  }
  const body = await readErrorBody(response.data);
  const fallbackReset = Math.ceil(Date.now() / 1000) + settings.rateLimitFallbackSeconds;
  const error = interpretError(endpoint, response.status, body, rate, new Date(fallbackReset * 1000));
  if (error instanceof XRateLimitedError && error.kind === 'rate_limit') {
    const reset = Math.max(error.resetAt.getTime() / 1000, Math.ceil(Date.now() / 1000) + 1);
    await guarded('exhaust', endpoint, () => budget.exhaust(endpoint, reset), reset);
  } else if (rate) {
    await guarded('record', endpoint, () => budget.record(endpoint, rate, Date.now()), undefined);
  }
  log.warn('x stream connect refused', { endpoint, status: response.status, code: error.code, kind: error instanceof XRateLimitedError ? error.kind : undefined });
  throw error;
}

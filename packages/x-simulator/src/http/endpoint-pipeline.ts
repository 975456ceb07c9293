import type { Request, RequestHandler, Response } from 'express';
import type { XEndpoint } from '../endpoints';
import type { FaultKind } from '../faults/fault-injector';
import type { LimitState, TokenKind } from '../limits/rate-limiter';
import type { SimulatorState } from '../simulator-state';
import type { XAnswer } from './problems';
import { sendXAnswer } from './x-response';

/** Who is calling: the token and whether X would treat it as app-only or user context. */
export interface Caller {
  token: string;
  kind: TokenKind;
}

/** A handler's answer, with the billable resources it served. */
export interface ServedAnswer extends XAnswer {
  postsServed?: number;
  usersServed?: number;
  /**
   * A streaming answer: instead of sending `body`, the pipeline hands the response over once the status and
   * rate headers are set (the filtered stream holds it open).
   */
  stream?: (req: Request, res: Response) => void;
}

export type EndpointHandler = (req: Request, caller: Caller) => ServedAnswer;

function bearer(req: Request, state: SimulatorState): Caller | undefined {
  const match = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '');
  const token = match?.[1];
  if (!token) return undefined;
  if (state.settings.userTokens.includes(token)) return { token, kind: 'user' };
  if (state.settings.appTokens.includes(token)) return { token, kind: 'app' };
  return undefined;
}

function setLimitHeaders(res: Response, limit: LimitState): void {
  res.set('x-rate-limit-limit', String(limit.limit));
  res.set('x-rate-limit-remaining', String(limit.remaining));
  res.set('x-rate-limit-reset', String(limit.reset));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Wraps one X endpoint in what X does around every call, in order: bearer auth (401 without rate headers),
 * user-context check, injected faults, the usage cap, the per-token window (429 with x-rate-limit-*), then the
 * handler; every request lands in the request log with the posts and users it served.
 */
export function endpoint(
  name: XEndpoint,
  state: SimulatorState,
  handler: EndpointHandler,
  options: {
    userContextOnly?: boolean;
    appOnly?: boolean;
    /** Never gzip this endpoint's answers, refusals included (the filtered stream: its client reads raw bytes). */
    identity?: boolean;
  } = {},
): RequestHandler {
  return async (req, res) => {
    const caller = bearer(req, state);
    let answer: ServedAnswer;
    let fault: FaultKind | null = null;
    if (!caller) {
      answer = state.problems.unauthorized();
    } else if (options.userContextOnly && caller.kind === 'app') {
      answer = state.problems.unsupportedAuthentication('app');
    } else if (options.appOnly && caller.kind === 'user') {
      answer = state.problems.unsupportedAuthentication('user');
    } else {
      const injected = state.faults.take(name);
      fault = injected?.kind ?? null;
      if (injected?.kind === 'slow') await sleep(injected.delayMs);
      if (injected?.kind === 'rate_limited') {
        // The headers are those of the moment the request arrived: a held 429 answers late with the window
        // it was refused in, which may have rolled meanwhile, as a late answer from X does.
        const window = state.limiter.peek(name, caller.token, caller.kind);
        const reset = injected.resetInSeconds === undefined ? window.reset : Math.ceil(state.now() / 1000) + injected.resetInSeconds;
        setLimitHeaders(res, { ...window, remaining: 0, reset });
        if (injected.delayMs > 0) await sleep(injected.delayMs);
        answer = state.problems.rateLimited(injected.body ?? state.settings.rateLimitBody);
      } else if (injected?.kind === 'usage_capped') {
        setLimitHeaders(res, state.limiter.peek(name, caller.token, caller.kind));
        answer = state.problems.usageCapped();
      } else if (injected?.kind === 'unavailable') {
        answer = state.problems.unavailable();
      } else if (injected?.kind === 'unauthorized') {
        answer = state.problems.unauthorized();
      } else if (injected?.kind === 'internal_error') {
        answer = state.problems.internalError();
      } else if (state.settings.postCap !== null && state.requestLog.postsServed() >= state.settings.postCap) {
        setLimitHeaders(res, state.limiter.peek(name, caller.token, caller.kind));
        answer = state.problems.usageCapped();
      } else {
        const limit = state.limiter.consume(name, caller.token, caller.kind);
        setLimitHeaders(res, limit);
        answer = limit.allowed ? handler(req, caller) : state.problems.rateLimited(state.settings.rateLimitBody);
      }
    }
    // X bills only successful reads.
    const billed = answer.status === 200;
    state.requestLog.record({
      at: new Date(state.now()).toISOString(),
      endpoint: name,
      method: req.method,
      path: req.path,
      query: { ...(req.query as Record<string, unknown>) },
      status: answer.status,
      tokenKind: caller?.kind ?? 'none',
      postsServed: billed ? (answer.postsServed ?? 0) : 0,
      usersServed: billed ? (answer.usersServed ?? 0) : 0,
      fault,
    });
    if (res.destroyed) return;
    if (answer.stream && answer.status === 200) answer.stream(req, res);
    else await sendXAnswer(req, res, answer, state.now(), options.identity);
  };
}

import { OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { AppError, errorStatus, type ErrorCode } from '@hashwatch/errors';
import type { GatewayDeps } from '../deps';
import type { AuthContext } from '../middleware/authenticate';
import { sameOriginOnly } from '../middleware/same-origin';
import type { TightLimit } from '../middleware/tight-limit';
import { selfServiceOptions } from '../routes/session/self-service-options';
import { errorBodyWithCodes } from './error-schema';
import { JsonText } from './json-text';
import { validate } from './validate';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface HandlerContext<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  auth: AuthContext;
  req: Request;
  res: Response;
}

export interface RouteSpec<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType, R extends z.ZodType> {
  method: Method;
  /** OpenAPI-style path relative to /v1, e.g. `/tracks/{id}`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  body?: B;
  query?: Q;
  params?: P;
  /** Request headers worth documenting (e.g. X-TOTP-Code). */
  headers?: z.ZodObject;
  /** 204 answers no body: its schema is `z.void()` or any schema the handler's undefined result passes. */
  success: { status: 200 | 201 | 202 | 204; description: string; schema: R };
  /**
   * Error codes this route can answer with, beyond the ones every authenticated route has; `{code, status}` for a code
   * this route answers with another status than its usual one (AppError's `details.status`).
   */
  errors?: (ErrorCode | { code: ErrorCode; status: number })[];
  limit?: TightLimit;
  /** Reached also by an account whose subscription is not active (no 402): the billing portal, where it pays again. */
  openWhileInactive?: true;
  /** The response body, or the same as JSON text ({@link JsonText}) when the database already built it. */
  handler: (ctx: HandlerContext<z.output<B>, z.output<Q>, z.output<P>>) => Promise<z.input<R> | JsonText>;
}

/** A route anyone may call (checkout, sign-in, password reset): no key, no session, limits of its own. */
export interface PublicRouteSpec<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType, R extends z.ZodType>
  extends Omit<RouteSpec<B, Q, P, R>, 'handler' | 'limit'> {
  /** Run before the body is read (per-IP limits). */
  before?: RequestHandler[];
  handler: (ctx: Omit<HandlerContext<z.output<B>, z.output<Q>, z.output<P>>, 'auth'>) => Promise<z.input<R> | JsonText | undefined>;
}

/** Bodies over 64 KiB answer 413 payload_too_large. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** Reads any body as JSON (whatever its Content-Type), so a wrong body answers 400 instead of being ignored. */
export const jsonBody = () => express.json({ limit: BODY_LIMIT_BYTES, type: () => true, strict: true });

// Every /v1 route reads a body before routing (so any route can answer 400 to a body it does not take,
// and 413 to one over 64 KiB), and every route authenticates, rate-limits and checks the subscription.
const COMMON_ERRORS: ErrorCode[] = ['invalid_request', 'unauthorized', 'subscription_inactive', 'payload_too_large', 'rate_limited', 'internal_error', 'unavailable'];
// Through a session cookie, unsafe methods also need X-CSRF-Token.
const UNSAFE_METHOD_ERRORS: ErrorCode[] = ['csrf_failed'];
// A public route reads its own body and has its own per-IP limits.
const PUBLIC_ERRORS: ErrorCode[] = ['invalid_request', 'csrf_failed', 'payload_too_large', 'rate_limited', 'internal_error', 'unavailable'];

const errorDescriptions: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'Invalid input, or a body sent to an endpoint that takes none: the message names the field (`invalid_request`).',
  unauthorized: 'Missing, invalid or revoked API key, or no valid session cookie (`unauthorized`).',
  invalid_credentials: 'Wrong email or password (`invalid_credentials`); the same answer whether or not the email has an account.',
  csrf_failed: 'A session-authenticated unsafe request without the session’s `X-CSRF-Token` (`csrf_failed`).',
  service_unavailable: 'The billing provider did not answer (`service_unavailable`); nothing was changed, retry later.',
  unavailable: 'The database did not answer in time or is restarting (`unavailable`); retry after `Retry-After` (creates answer 409 `already_exists` when the first attempt did land).',
  subscription_inactive: 'The subscription is inactive or expired (`subscription_inactive`).',
  plan_limit_reached: 'The plan limit would be exceeded (`plan_limit_reached`); nothing was changed.',
  two_factor_required: '2FA is on and `X-TOTP-Code` is missing (`two_factor_required`).',
  invalid_two_factor_code: 'The TOTP code is wrong (`invalid_two_factor_code`).',
  not_found: 'No such resource in this account (`not_found`).',
  already_exists: 'The resource already exists (`already_exists`).',
  payload_too_large: 'The body is over 64 KiB (`payload_too_large`).',
  rate_limited: 'Over the per-minute cap or a tighter endpoint limit (`rate_limited`); see `Retry-After`.',
  internal_error: 'Unexpected failure (`internal_error`); no detail leaves the server.',
  delivery_failed: 'The target refused or failed the delivery (`delivery_failed`).',
};

function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** Binds route definitions to an express Router and to the OpenAPI registry, so the docs are the code. */
export class ApiBuilder {
  /** The routes behind authentication (an API key or a session). */
  readonly router = Router();
  /** The routes anyone may call; mounted before authentication. */
  readonly publicRouter = Router();
  /** `METHOD /path` (express form, relative to /v1) of the routes an inactive subscription still reaches. */
  readonly openWhileInactive = new Set<string>();
  private readonly sameOrigin: RequestHandler;

  constructor(
    readonly registry: OpenAPIRegistry,
    private readonly deps: GatewayDeps,
  ) {
    this.sameOrigin = sameOriginOnly(selfServiceOptions(deps).publicUrl);
  }

  route<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType, R extends z.ZodType>(spec: RouteSpec<B, Q, P, R>): void {
    const documented = this.document(spec);
    if (spec.openWhileInactive) {
      // Matched against the request's path as it is, so only a path without parameters can be open.
      if (spec.path.includes('{')) throw new Error(`${spec.path}: a route open while inactive cannot have path parameters`);
      this.openWhileInactive.add(`${spec.method.toUpperCase()} ${spec.path}`);
    }
    const middlewares = spec.limit ? [spec.limit.middleware] : [];
    this.router[spec.method](expressPath(spec.path), ...middlewares, async (req: Request, res: Response) => {
      try {
        await this.handle(spec, req, res);
      } catch (error) {
        this.checkDocumented(spec, documented, error);
        throw error;
      }
    });
  }

  /**
   * A route without authentication; it refuses cross-site browser requests, then reads its own body (after
   * `before`, e.g. a per-IP limit).
   */
  publicRoute<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType, R extends z.ZodType>(spec: PublicRouteSpec<B, Q, P, R>): void {
    const documented = this.document(spec, 'public');
    this.publicRouter[spec.method](expressPath(spec.path), this.sameOrigin, ...(spec.before ?? []), jsonBody(), async (req: Request, res: Response) => {
      try {
        await this.handle(spec, req, res);
      } catch (error) {
        this.checkDocumented(spec, documented, error);
        throw error;
      }
    });
  }

  private checkDocumented(spec: { method: Method; path: string }, documented: Map<number, ErrorCode[]>, error: unknown): void {
    // With response validation on (tests), an error status the OpenAPI document does not list fails loudly.
    if (this.deps.validateResponses && error instanceof AppError && !documented.get(error.status)?.includes(error.code)) {
      throw new Error(`${spec.method.toUpperCase()} ${spec.path} answered ${error.status} ${error.code}, which its OpenAPI responses do not list`, { cause: error });
    }
  }

  private async handle<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType, R extends z.ZodType>(
    spec: Pick<RouteSpec<B, Q, P, R>, 'method' | 'path' | 'success' | 'body' | 'query' | 'params'> & {
      handler: (ctx: HandlerContext<z.output<B>, z.output<Q>, z.output<P>>) => Promise<z.input<R> | JsonText | undefined>;
    },
    req: Request,
    res: Response,
  ): Promise<void> {
    if (!spec.body && req.body !== undefined && Object.keys(req.body as object).length > 0) {
      throw new AppError('invalid_request', 'body: this endpoint takes no body');
    }
    const body = spec.body ? validate(spec.body, req.body ?? {}, 'body') : undefined;
    const query = spec.query ? validate(spec.query, req.query, 'query') : undefined;
    const params = spec.params ? validate(spec.params, req.params, 'path') : undefined;
    const result = await spec.handler({
      body: body as z.output<B>,
      query: query as z.output<Q>,
      params: params as z.output<P>,
      auth: res.locals.auth as AuthContext,
      req,
      res,
    });
    sendSuccess(res, spec, result, this.deps.validateResponses === true);
  }

  /** Registers the route's OpenAPI path; answers the error codes it documents, by HTTP status. */
  private document(
    spec: Omit<RouteSpec<z.ZodType, z.ZodType, z.ZodType, z.ZodType>, 'handler' | 'limit'>,
    access: 'authenticated' | 'public' = 'authenticated',
  ): Map<number, ErrorCode[]> {
    const codesByStatus = new Map<number, ErrorCode[]>();
    const common = access === 'public' ? PUBLIC_ERRORS : [...COMMON_ERRORS, ...(spec.method === 'get' ? [] : UNSAFE_METHOD_ERRORS)];
    const documented = [...common.map((code) => ({ code, status: errorStatus(code) })), ...(spec.errors ?? []).map((error) => (typeof error === 'string' ? { code: error, status: errorStatus(error) } : error))];
    for (const { code, status } of documented) {
      const codes = codesByStatus.get(status) ?? [];
      if (!codes.includes(code)) codesByStatus.set(status, [...codes, code]);
    }
    const responses: RouteConfig['responses'] = {
      [spec.success.status]: {
        description: spec.success.description,
        ...(access === 'public' ? {} : { headers: rateLimitHeaders }),
        ...(spec.success.status === 204 ? {} : { content: { 'application/json': { schema: spec.success.schema } } }),
      },
    };
    for (const [status, codes] of codesByStatus) {
      responses[status] = {
        description: codes.map((code) => errorDescriptions[code] ?? code).join(' Or: '),
        headers: status === 429 ? { ...rateLimitHeaders, 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } : rateLimitHeaders,
        content: { 'application/json': { schema: errorBodyWithCodes(codes as [ErrorCode, ...ErrorCode[]]) } },
      };
    }
    this.registry.registerPath({
      method: spec.method,
      path: `/v1${spec.path}`,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
      security: access === 'public' ? [] : [{ bearerAuth: [] }, { sessionCookie: [] }],
      request: {
        ...(spec.params ? { params: spec.params as z.ZodObject } : {}),
        ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
        ...(requestHeaders(spec, access) ? { headers: requestHeaders(spec, access) } : {}),
        ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
      },
      responses,
    });
    return codesByStatus;
  }
}

/**
 * A route's success answer. With `validate` (tests), the body is first checked against the route's documented
 * schema, and a mismatch fails the request loudly.
 */
export function sendSuccess(
  res: Response,
  route: Pick<RouteSpec<z.ZodType, z.ZodType, z.ZodType, z.ZodType>, 'method' | 'path' | 'success'>,
  result: unknown,
  validate: boolean,
): void {
  if (validate) {
    const checked = route.success.schema.safeParse(result instanceof JsonText ? JSON.parse(result.text) : result);
    if (!checked.success) {
      throw new Error(`response of ${route.method.toUpperCase()} ${route.path} does not match its schema: ${checked.error.message}`);
    }
  }
  if (route.success.status === 204) res.status(204).end();
  else if (result instanceof JsonText) res.status(route.success.status).type('application/json').send(result.text);
  else res.status(route.success.status).json(result);
}

const csrfHeader = z.object({
  'X-CSRF-Token': z
    .string()
    .optional()
    .meta({ description: 'Through a dashboard session (the `hw_session` cookie): the `csrf_token` of `GET /v1/session`. Not needed with an API key.' }),
});

/** The route's documented request headers, with X-CSRF-Token on every unsafe authenticated one. */
function requestHeaders(spec: { method: Method; headers?: z.ZodObject }, access: 'authenticated' | 'public'): z.ZodObject | undefined {
  if (access === 'public' || spec.method === 'get') return spec.headers;
  return spec.headers ? spec.headers.extend(csrfHeader.shape) : csrfHeader;
}

const rateLimitHeaders = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window.', schema: { type: 'integer' as const } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' as const } },
  'X-RateLimit-Reset': { description: 'Unix seconds when the window resets.', schema: { type: 'integer' as const } },
};

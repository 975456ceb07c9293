import type { NextFunction, Request, Response } from 'express';
import { subscriptionProblem } from '@hashwatch/accounts';
import { statementName } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import { hashApiKey } from '@hashwatch/secrets';
import type { GatewayDeps } from '../deps';
import { CSRF_HEADER, sessionCookie, SessionStore } from '../sessions/session-store';
import { addressKey } from './client-address';
import { setRateLimitHeaders } from './rate-limit-headers';
import { Limiter, PerMinuteLimiters } from './rate-limiters';

/** The caller, as the rest of the request sees it. */
export interface AuthContext {
  userId: string;
  rateLimitPerMinute: number;
  /** The dashboard session the request came with; undefined for an API key. */
  sessionId?: string;
}

/** What authentication needs to know of the caller: the account, its cap and subscription. */
export interface CallerRow {
  user_id: string;
  rate_limit_per_minute: number;
  subscription_status: 'pending' | 'active' | 'past_due' | 'canceled';
  /** Unix milliseconds, as text (int8 reaches JavaScript as a string, and costs no date parsing). */
  period_end_ms: string;
  session_id?: string;
}

/**
 * The key's row, found by the SHA-256 of the key in parameter `hashParam`. Every column is named as in
 * {@link CallerRow}, so a statement can select from it as a subquery (GET /v1/posts reads the page in the same
 * statement).
 */
export function keyLookupSql(hashParam: string): string {
  return `SELECT u.id AS user_id, u.rate_limit_per_minute, u.subscription_status,
                 (extract(epoch FROM u.current_period_end) * 1000)::int8 AS period_end_ms
            FROM api_keys k JOIN users u ON u.id = k.user_id
           WHERE k.key_hash = ${hashParam} AND k.revoked_at IS NULL`;
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,200})$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
// 60 failed authentications a minute per client IP, then 429; a valid key from the same IP is not affected.
const AUTH_FAILURES_PER_MINUTE = 60;

/**
 * Bearer authentication (or the dashboard's session cookie), then the per-account cap, then the subscription
 * check. The key or session is looked up in PostgreSQL on every request (no cache), so a regenerated key or an
 * ended session is refused at once on every replica. One instance per gateway: its limiters' in-memory
 * stand-ins (used while Redis does not answer) are then shared by every route.
 */
export class Authenticator {
  private readonly perAccount: PerMinuteLimiters;
  private readonly failures: Limiter;
  readonly sessions: SessionStore;

  constructor(private readonly deps: GatewayDeps) {
    // Per account, not per key: a key and the dashboard's sessions share the account's cap, and a new key does
    // not start a fresh minute.
    this.perAccount = new PerMinuteLimiters(deps.redis, `${deps.keyPrefix}:rl:account`);
    this.failures = new Limiter(deps.redis, `${deps.keyPrefix}:rl:authfail`, AUTH_FAILURES_PER_MINUTE, 60);
    this.sessions = new SessionStore(deps.db.pool, deps.secretsKey, deps.now);
  }

  /** The API key of `Authorization: Bearer <key>`, or undefined when the header is missing or malformed. */
  bearer(req: Request): string | undefined {
    return BEARER.exec(req.headers.authorization ?? '')?.[1];
  }

  /** Always throws: 401, or 429 once the client's address has failed too often. */
  async refuse(req: Request, hadKey: boolean, credential: 'key' | 'session' = 'key'): Promise<never> {
    const decision = await this.failures.consume(addressKey(req));
    if (!decision.allowed) {
      throw new AppError('rate_limited', `too many failed authentications from this address; retry in ${decision.retryAfterSeconds}s`, {
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    }
    throw new AppError(
      'unauthorized',
      !hadKey
        ? 'missing bearer API key: send Authorization: Bearer <API_KEY>'
        : credential === 'key'
          ? 'the API key is invalid or revoked'
          : 'the session is unknown, ended or expired: sign in again',
    );
  }

  /**
   * Counts the request against the account's per-minute cap (the rate-limit headers go on `res` whatever the
   * outcome), then checks the subscription unless `subscriptionOptional`: 429 or 402, or the caller for
   * `res.locals.auth`.
   */
  async admit(res: Response, row: CallerRow, subscriptionOptional = false): Promise<AuthContext> {
    const decision = await this.perAccount.for(row.rate_limit_per_minute).consume(row.user_id);
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) {
      throw new AppError('rate_limited', `over the plan's cap of ${decision.limit} requests per minute; retry in ${decision.retryAfterSeconds}s`);
    }
    const problem = subscriptionProblem({ subscriptionStatus: row.subscription_status, currentPeriodEnd: new Date(Number(row.period_end_ms)) }, this.deps.now());
    if (problem && !subscriptionOptional) throw new AppError('subscription_inactive', problem);
    const auth: AuthContext = { userId: row.user_id, rateLimitPerMinute: row.rate_limit_per_minute, ...(row.session_id ? { sessionId: row.session_id } : {}) };
    res.locals.auth = auth;
    return auth;
  }

  /** The key's row, or undefined for an unknown or revoked key. */
  async findKey(apiKey: string): Promise<CallerRow | undefined> {
    // Named, so PostgreSQL parses and plans it once per connection instead of on every request (unnamed through a
    // transaction pooler, where the next transaction may run on another server connection).
    const { pool } = this.deps.db;
    const { rows } = await pool.query<CallerRow>({ ...statementName(pool, 'hw-authenticate'), text: keyLookupSql('$1'), values: [hashApiKey(apiKey)] });
    return rows[0];
  }

  /**
   * A session cookie's caller: 401 for an unknown or expired session, 403 `csrf_failed` for an unsafe method
   * without the session's X-CSRF-Token (checked before the request counts against the cap, so a forged request
   * costs the account nothing).
   */
  private async sessionCaller(req: Request, res: Response, token: string): Promise<CallerRow> {
    const row = await this.sessions.find(token);
    if (!row) return this.refuse(req, true, 'session');
    if (!SAFE_METHODS.has(req.method) && !this.sessions.csrfMatches(token, req.header(CSRF_HEADER))) {
      // Not counted (a forged request costs the account nothing), but answered with the account's headers as any.
      setRateLimitHeaders(res, await this.perAccount.for(row.rate_limit_per_minute).peek(row.user_id));
      throw new AppError('csrf_failed', `a request through a session needs the ${CSRF_HEADER} header that GET /v1/session answers`);
    }
    return row;
  }

  /**
   * The middleware of every /v1 route: authenticates before the body is read, so every answer to a request
   * with a valid key carries the rate-limit headers, a 413 included. A bearer key wins over a session cookie.
   * `openWhileInactive` (ApiBuilder's set of `METHOD /path`) names the routes an inactive subscription reaches.
   */
  middleware(openWhileInactive: ReadonlySet<string> = new Set()) {
    return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
      const subscriptionOptional = openWhileInactive.has(`${req.method} ${req.path}`);
      const apiKey = this.bearer(req);
      const session = apiKey === undefined ? sessionCookie(req) : undefined;
      if (session !== undefined) {
        await this.admit(res, await this.sessionCaller(req, res, session), subscriptionOptional);
        return next();
      }
      const row = apiKey === undefined ? undefined : await this.findKey(apiKey);
      if (!row) return this.refuse(req, apiKey !== undefined);
      await this.admit(res, row, subscriptionOptional);
      next();
    };
  }
}

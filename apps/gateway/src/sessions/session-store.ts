import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type pg from 'pg';
import { newId, statementName } from '@hashwatch/db';
import { hashToken, randomToken } from '@hashwatch/secrets';

/** The dashboard's session cookie. */
export const SESSION_COOKIE = 'hw_session';
/** The header that carries the session's CSRF token on unsafe methods. */
export const CSRF_HEADER = 'X-CSRF-Token';

const HOUR_MS = 3_600_000;
/** A session unused for 12 hours ends. */
export const SESSION_IDLE_MS = 12 * HOUR_MS;
/** A session ends 7 days after its sign-in, however much it is used. */
export const SESSION_ABSOLUTE_MS = 7 * 24 * HOUR_MS;
// Use moves the idle expiry forward at most once a minute: one write per session per minute instead of one per
// request, so a session costs an API request what a key does (bench/session-auth.ts). The idle expiry is
// therefore exact to within this minute.
const TOUCH_EVERY_MS = 60_000;
/** Live sessions one account may hold; a sign-in past it ends the account's oldest. */
export const MAX_SESSIONS_PER_ACCOUNT = 20;

/** What authentication needs of a session: its owner, the owner's cap and subscription, and its expiry. */
export interface SessionRow {
  session_id: string;
  user_id: string;
  email: string;
  rate_limit_per_minute: number;
  subscription_status: 'pending' | 'active' | 'past_due' | 'canceled';
  period_end_ms: string;
  last_seen_ms: string;
  expires_ms: string;
}

const FIND_SESSION = `
SELECT s.id AS session_id, u.id AS user_id, u.email, u.rate_limit_per_minute, u.subscription_status,
       (extract(epoch FROM u.current_period_end) * 1000)::int8 AS period_end_ms,
       (extract(epoch FROM s.last_seen_at) * 1000)::int8 AS last_seen_ms,
       (extract(epoch FROM s.expires_at) * 1000)::int8 AS expires_ms
  FROM sessions s JOIN users u ON u.id = s.user_id
 WHERE s.token_hash = $1 AND s.expires_at > $2 AND s.last_seen_at > $3`;

/** The session's end: the earlier of its idle and its absolute expiry. */
export function sessionExpiry(row: Pick<SessionRow, 'last_seen_ms' | 'expires_ms'>): Date {
  return new Date(Math.min(Number(row.last_seen_ms) + SESSION_IDLE_MS, Number(row.expires_ms)));
}

/** Sessions in the database: only the SHA-256 of a cookie value is stored. */
export class SessionStore {
  private readonly csrfKey: Buffer;

  constructor(
    private readonly pool: pg.Pool,
    secretsKey: string,
    private readonly now: () => Date,
  ) {
    // A key of its own, derived from SECRETS_KEY, for the CSRF tokens.
    this.csrfKey = createHmac('sha256', Buffer.from(secretsKey, 'base64')).update('hashwatch csrf tokens v1').digest();
  }

  /**
   * Starts a session for the account; the token goes in the cookie and nowhere else. `expiresAt` is the absolute
   * end, which the cookie keeps: the idle expiry moves with use, so only the server enforces it.
   */
  async create(client: pg.Pool | pg.PoolClient, userId: string): Promise<{ token: string; expiresAt: Date }> {
    const now = this.now();
    const token = `hws_${randomToken(32)}`;
    const id = newId('ses');
    const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
    // The account's ended sessions go as a new one starts, so the table holds live sessions and few others.
    await client.query(
      `WITH ended AS (DELETE FROM sessions WHERE user_id = $2 AND (expires_at <= $4 OR last_seen_at <= $6))
       INSERT INTO sessions (id, user_id, token_hash, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $4, $5)`,
      [id, userId, hashToken(token), now, expiresAt, new Date(now.getTime() - SESSION_IDLE_MS)],
    );
    // At most MAX_SESSIONS_PER_ACCOUNT live: the oldest others end, so repeated sign-ins never grow the table
    // without bound. The new one always stays.
    await client.query(
      `DELETE FROM sessions WHERE id IN (
         SELECT id FROM sessions WHERE user_id = $1 AND id <> $2 ORDER BY created_at DESC, id DESC OFFSET $3)`,
      [userId, id, MAX_SESSIONS_PER_ACCOUNT - 1],
    );
    return { token, expiresAt };
  }

  /** The live session of this cookie value, its use recorded; undefined when unknown, ended or expired. */
  async find(token: string): Promise<SessionRow | undefined> {
    const now = this.now();
    const { rows } = await this.pool.query<SessionRow>({
      ...statementName(this.pool, 'hw-find-session'),
      text: FIND_SESSION,
      values: [hashToken(token), now, new Date(now.getTime() - SESSION_IDLE_MS)],
    });
    const row = rows[0];
    if (row && now.getTime() - Number(row.last_seen_ms) >= TOUCH_EVERY_MS) {
      await this.pool.query('UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2', [row.session_id, now]);
      row.last_seen_ms = String(now.getTime());
    }
    return row;
  }

  /** Ends the session of this cookie value (sign-out). */
  async end(token: string): Promise<void> {
    await this.pool.query('DELETE FROM sessions WHERE token_hash = $1', [hashToken(token)]);
  }

  /** The CSRF token of a session: an HMAC of its cookie value, so nothing more is stored and no other session's fits. */
  csrfToken(token: string): string {
    return createHmac('sha256', this.csrfKey).update(token).digest('base64url');
  }

  /** True when `header` is this session's CSRF token. */
  csrfMatches(token: string, header: string | undefined): boolean {
    if (header === undefined) return false;
    const expected = Buffer.from(this.csrfToken(token));
    const given = Buffer.from(header);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** Ends every session of the account (a password change or reset). */
export async function endSessions(client: pg.Pool | pg.PoolClient, userId: string): Promise<void> {
  await client.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
}

const COOKIE_VALUE = /^hws_[A-Za-z0-9_-]{43}$/;

/** The session cookie's value, or undefined when there is none or it is not one of ours. */
export function sessionCookie(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0 || part.slice(0, separator).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(separator + 1).trim();
    return COOKIE_VALUE.test(value) ? value : undefined;
  }
  return undefined;
}

/** Sets the cookie: HttpOnly, SameSite=Lax, Path=/, Secure when the request came over HTTPS. */
export function setSessionCookie(req: Request, res: Response, token: string, expiresAt: Date): void {
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', path: '/', secure: req.secure, expires: expiresAt });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: req.secure });
}

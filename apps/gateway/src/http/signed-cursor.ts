import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import { AppError } from '@hashwatch/errors';

export interface SignedCursor<P> {
  encode(position: P, scope: readonly unknown[]): string;
  /** The position, or 400 invalid_request `cursor: ...` for a malformed, modified or foreign cursor. */
  decode(cursor: string, scope: readonly unknown[]): P;
  /**
   * The position a well-formed cursor claims, NOT checked against its MAC (undefined when malformed). Only
   * for work that `verify` confirms before anything is answered.
   */
  peek(cursor: string): P | undefined;
  /** The MAC check of `decode` alone: 400 invalid_request for a malformed, modified or foreign cursor. */
  verify(cursor: string, scope: readonly unknown[]): void;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
// 32 bytes of HMAC-SHA256 in unpadded base64url.
const MAC_CHARS = 43;

/**
 * Opaque, tamper-evident list cursors: base64url of the JSON position followed by the
 * base64url HMAC-SHA256 (always 43 characters). The key is
 * derived from SECRETS_KEY with HKDF under `purpose`, so cursors of one list never open another, and the
 * MAC also covers `scope` (the account and the filters), so a cursor only works for the query that made it.
 * `refilter` names what to repeat, for the message of a cursor used with other filters.
 */
export function signedCursor<P>(secretsKey: string, purpose: string, schema: z.ZodType<P>, refilter: string): SignedCursor<P> {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secretsKey, 'base64'), Buffer.alloc(0), purpose, 32));
  const mac = (body: string, scope: readonly unknown[]) => createHmac('sha256', key).update(JSON.stringify(scope)).update('\n').update(body).digest();
  const malformed = () => new AppError('invalid_request', 'cursor: malformed; pass next_cursor exactly as it was returned');
  const parse = (body: string): P | undefined => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    const position = schema.safeParse(parsed);
    return position.success ? position.data : undefined;
  };
  const wellFormed = (cursor: string) => cursor.length > MAC_CHARS && BASE64URL.test(cursor);
  const verify = (cursor: string, scope: readonly unknown[]): void => {
    if (!wellFormed(cursor)) throw malformed();
    const body = cursor.slice(0, -MAC_CHARS);
    const given = Buffer.from(cursor.slice(-MAC_CHARS), 'base64url');
    const expected = mac(body, scope);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new AppError('invalid_request', `cursor: not valid for this request; it was modified, or it came from another account or from other filters (${refilter})`);
    }
  };

  return {
    encode(position, scope) {
      const body = Buffer.from(JSON.stringify(position)).toString('base64url');
      return `${body}${mac(body, scope).toString('base64url')}`;
    },
    decode(cursor, scope) {
      verify(cursor, scope);
      const position = parse(cursor.slice(0, -MAC_CHARS));
      if (position === undefined) throw malformed();
      return position;
    },
    verify,
    peek(cursor) {
      if (!wellFormed(cursor)) return undefined;
      return parse(cursor.slice(0, -MAC_CHARS));
    },
  };
}

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/*
 * Standard Webhooks v1 (standardwebhooks.com): the signed content is `{webhook-id}.{webhook-timestamp}.{body}` over
 * the exact bytes sent; `webhook-signature` is a space-separated list of `v1,<base64 HMAC-SHA256>`; the key
 * is the base64 payload of a `whsec_` secret, 24–64 random bytes.
 */
const SECRET_PREFIX = 'whsec_';
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
export const DEFAULT_TOLERANCE_SECONDS = 300;

export class SigningSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningSecretError';
  }
}

/** A new channel secret: `whsec_` + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new SigningSecretError('a signing secret starts with whsec_');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
    throw new SigningSecretError(`a signing secret holds ${MIN_SECRET_BYTES}-${MAX_SECRET_BYTES} bytes, base64-encoded`);
  }
  return key;
}

function hmac(key: Buffer, id: string, timestamp: number, body: string | Buffer): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
}

/** The `webhook-signature` value for one attempt: `v1,<base64>`. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string | Buffer): string {
  return `v1,${hmac(secretKey(secret), id, timestamp, body).toString('base64')}`;
}

export type WebhookVerification =
  | { valid: true; id: string; timestamp: number }
  | { valid: false; reason: 'missing_headers' | 'timestamp_out_of_tolerance' | 'invalid_signature' };

type HeaderBag = Record<string, string | string[] | undefined> | Headers;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

/**
 * Checks a delivery the way a receiver should: headers present, timestamp within `toleranceSeconds` of
 * `now` (replay window), and one `v1` signature matching, compared in constant time. `body` must be the
 * raw bytes received, before any JSON parsing.
 */
export function verifyWebhookSignature(
  secret: string,
  headers: HeaderBag,
  body: string | Buffer,
  options: { toleranceSeconds?: number; now?: Date } = {},
): WebhookVerification {
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampText || !signatures || !/^\d+$/.test(timestampText)) {
    return { valid: false, reason: 'missing_headers' };
  }
  const timestamp = Number(timestampText);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { valid: false, reason: 'timestamp_out_of_tolerance' };
  }
  const expected = hmac(secretKey(secret), id, timestamp, body);
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? { valid: true, id, timestamp } : { valid: false, reason: 'invalid_signature' };
}

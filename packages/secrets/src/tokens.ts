import { createHash, randomBytes } from 'node:crypto';

/** URL-safe random string of `bytes` random bytes. */
export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

/** A new API key: `hw_live_` + 256 random bits. Only its hash is ever stored. */
export function generateApiKey(): string {
  return `hw_live_${randomToken(32)}`;
}

/**
 * SHA-256 of a bearer token (an API key, a session cookie, a sign-in or reset token): the lookup value stored in
 * place of the token. The tokens carry 256 random bits, so a fast hash is enough: nothing can be guessed from it.
 */
export function hashToken(token: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(token, 'utf8').digest());
}

/** SHA-256 of the key: the lookup value stored in place of the key. */
export const hashApiKey = hashToken;

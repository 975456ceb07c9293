import { createHash, randomBytes } from 'node:crypto';

/** URL-safe random string of `bytes` random bytes. */
export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

/** A new API key: `hw_live_` + 256 random bits. Only its hash is ever stored. */
export function generateApiKey(): string {
  return `hw_live_${randomToken(32)}`;
}

/** SHA-256 of the key: the lookup value stored in place of the key. */
export function hashApiKey(apiKey: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(apiKey, 'utf8').digest());
}

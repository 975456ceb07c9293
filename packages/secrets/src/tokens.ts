import { createHash, randomBytes } from 'node:crypto';

export type IdPrefix = 'usr' | 'trk' | 'acc' | 'post' | 'wh' | 'bot' | 'key' | 'dlv';

/** URL-safe random string of `bytes` random bytes. */
export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

const ID_BYTES = 12;

/** A prefixed id such as `trk_3q2-9XkQzLpTnW8r` (96 random bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken(ID_BYTES)}`;
}

/** `count` ids as {@link newId} makes them, from one draw of randomness instead of one per id (a batch of thousands). */
export function newIds(prefix: IdPrefix, count: number): string[] {
  const bytes = randomBytes(count * ID_BYTES);
  const ids = new Array<string>(count);
  for (let i = 0; i < count; i += 1) ids[i] = `${prefix}_${bytes.toString('base64url', i * ID_BYTES, (i + 1) * ID_BYTES)}`;
  return ids;
}

/** A new API key: `hw_live_` + 256 random bits. Only its hash is ever stored. */
export function generateApiKey(): string {
  return `hw_live_${randomToken(32)}`;
}

/** SHA-256 of the key: the lookup value stored in place of the key. */
export function hashApiKey(apiKey: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(apiKey, 'utf8').digest());
}

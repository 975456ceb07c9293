import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsError';
  }
}

export interface Cipher {
  /** Seals with the current key. */
  encrypt(plaintext: string): string;
  /** Opens a value sealed with the current key, or else with the previous one; throws {@link SecretsError}. */
  decrypt(ciphertext: string): string;
}

/** 32 random bytes, base64: a fresh value for `SECRETS_KEY`. */
export function generateSecretsKey(): string {
  return randomBytes(32).toString('base64');
}

function keyBytes(base64Key: string, name: string): Buffer {
  const key = Buffer.from(base64Key, 'base64');
  if (key.length !== 32) throw new SecretsError(`${name} must be 32 bytes, base64-encoded`);
  return key;
}

function open(key: Buffer, ivBytes: Buffer, tagBytes: Buffer, body: Buffer): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, ivBytes);
    decipher.setAuthTag(tagBytes);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * AES-256-GCM with a random 96-bit IV per value. Output: `v1.<iv>.<tag>.<ciphertext>` (base64url parts),
 * so a tampered or truncated value fails authentication instead of decrypting to garbage.
 *
 * `previousKey` (SECRETS_KEY_PREVIOUS) is only ever read with: a value the current key does not open is
 * tried with it, so secrets sealed before a key change stay readable until `secrets:reseal` re-seals them.
 */
export function createCipher(base64Key: string, previousKey?: string): Cipher {
  const key = keyBytes(base64Key, 'secrets key');
  const keys = previousKey === undefined ? [key] : [key, keyBytes(previousKey, 'previous secrets key')];
  return {
    encrypt(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    decrypt(ciphertext) {
      const [version, iv, tag, body] = ciphertext.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
        throw new SecretsError('not a secret sealed by this service');
      }
      const ivBytes = Buffer.from(iv, 'base64url');
      const tagBytes = Buffer.from(tag, 'base64url');
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new SecretsError('malformed sealed secret');
      const bodyBytes = Buffer.from(body, 'base64url');
      for (const candidate of keys) {
        const plaintext = open(candidate, ivBytes, tagBytes, bodyBytes);
        if (plaintext !== undefined) return plaintext;
      }
      throw new SecretsError('sealed secret failed authentication (wrong key or tampered value)');
    },
  };
}

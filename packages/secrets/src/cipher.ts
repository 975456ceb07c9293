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
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

/** 32 random bytes, base64: a fresh value for `SECRETS_KEY`. */
export function generateSecretsKey(): string {
  return randomBytes(32).toString('base64');
}

/**
 * AES-256-GCM with a random 96-bit IV per value. Output: `v1.<iv>.<tag>.<ciphertext>` (base64url parts),
 * so a tampered or truncated value fails authentication instead of decrypting to garbage.
 */
export function createCipher(base64Key: string): Cipher {
  const key = Buffer.from(base64Key, 'base64');
  if (key.length !== 32) throw new SecretsError('secrets key must be 32 bytes, base64-encoded');
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
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, ivBytes);
        decipher.setAuthTag(tagBytes);
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretsError('sealed secret failed authentication (wrong key or tampered value)');
      }
    },
  };
}

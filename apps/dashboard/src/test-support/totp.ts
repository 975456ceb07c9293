/// <reference types="node" />
import { createHmac } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32Decode(secret: string): Buffer {
  let bits = '';
  for (const char of secret.replace(/=+$/, '').toUpperCase()) {
    const value = BASE32.indexOf(char);
    if (value < 0) throw new Error(`not base32: ${char}`);
    bits += value.toString(2).padStart(5, '0');
  }
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((byte) => parseInt(byte, 2)));
}

/** The 30-second step `offset` steps from now. */
export const stepNow = (offset = 0): number => Math.floor(Date.now() / 30_000) + offset;

/** The RFC 6238 code (HMAC-SHA1, 6 digits, 30-second steps) of `secret` for `step`: what an authenticator app shows. */
export function totp(secret: string, step = stepNow()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, '0');
}

/** Six digits that are none of the codes the gateway takes right now (the steps around this one). */
export function wrongCode(secret: string): string {
  const taken = new Set([-1, 0, 1, 2].map((offset) => totp(secret, stepNow(offset))));
  for (let n = 0; ; n += 1) {
    const candidate = String(n).padStart(6, '0');
    if (!taken.has(candidate)) return candidate;
  }
}

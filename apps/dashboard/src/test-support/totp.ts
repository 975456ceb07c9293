/// <reference types="node" />
import speakeasy from 'speakeasy';

/** The 30-second step `offset` steps from now. */
export const stepNow = (offset = 0): number => Math.floor(Date.now() / 30_000) + offset;

/** The RFC 6238 code of `secret` (base32) for `step`: what an authenticator app shows, by the library the gateway checks with. */
export function totp(secret: string, step = stepNow()): string {
  return speakeasy.totp({ secret, encoding: 'base32', time: step * 30 });
}

/** Six digits that are none of the codes the gateway takes right now (the steps around this one). */
export function wrongCode(secret: string): string {
  const taken = new Set([-1, 0, 1, 2].map((offset) => totp(secret, stepNow(offset))));
  for (let n = 0; ; n += 1) {
    const candidate = String(n).padStart(6, '0');
    if (!taken.has(candidate)) return candidate;
  }
}

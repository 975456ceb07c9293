// X's tokens are opaque base36 strings; the simulator's carry either the id to continue below or an offset.

export function encodeIdToken(belowId: bigint): string {
  return `b${belowId.toString(36)}`;
}

export function decodeIdToken(token: string): bigint | null {
  if (!/^b[0-9a-z]{1,14}$/.test(token)) return null;
  let value = 0n;
  for (const ch of token.slice(1)) value = value * 36n + BigInt(parseInt(ch, 36));
  return value;
}

export function encodeOffsetToken(offset: number): string {
  return `o${offset.toString(36)}`;
}

export function decodeOffsetToken(token: string): number | null {
  if (!/^o[0-9a-z]{1,8}$/.test(token)) return null;
  return parseInt(token.slice(1), 36);
}

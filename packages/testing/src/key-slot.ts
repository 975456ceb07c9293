/**
 * The Redis Cluster hash slot of a key (CRC16/XMODEM of the key, or of its hash tag, modulo 16384), as
 * `CLUSTER KEYSLOT` answers it: for tests that check which keys a cluster keeps together.
 */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key);
  const open = bytes.indexOf('{');
  let hashed = bytes;
  if (open !== -1) {
    const close = bytes.indexOf('}', open + 1);
    // An empty tag ("{}") does not count: the whole key is hashed.
    if (close > open + 1) hashed = bytes.subarray(open + 1, close);
  }
  let crc = 0;
  for (const byte of hashed) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

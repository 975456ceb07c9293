import { randomBytes } from 'node:crypto';

/** The prefix of each table's row ids, so an id says what it names. */
export type IdPrefix = 'usr' | 'trk' | 'acc' | 'post' | 'wh' | 'bot' | 'key' | 'dlv' | 'ses' | 'chk' | 'ntc';

const ID_BYTES = 12;

/** A prefixed row id such as `trk_3q2-9XkQzLpTnW8r` (96 random bits, URL-safe). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(ID_BYTES).toString('base64url')}`;
}

/** `count` ids as {@link newId} makes them, from one draw of randomness instead of one per id (a batch of thousands). */
export function newIds(prefix: IdPrefix, count: number): string[] {
  const bytes = randomBytes(count * ID_BYTES);
  const ids = new Array<string>(count);
  for (let i = 0; i < count; i += 1) ids[i] = `${prefix}_${bytes.toString('base64url', i * ID_BYTES, (i + 1) * ID_BYTES)}`;
  return ids;
}

import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A QUEUE_PREFIX of its own for one test file. */
export function createQueuePrefix(): string {
  return `hwt${randomBytes(5).toString('hex')}`;
}

/** Deletes every key under `prefix:` and nothing else (never FLUSHALL: the Redis may be shared). */
export async function deletePrefixKeys(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

import { randomBytes } from 'node:crypto';
import { Cluster, type Redis } from 'ioredis';

/** A QUEUE_PREFIX of its own for one test file. */
export function createQueuePrefix(): string {
  return `hwt${randomBytes(5).toString('hex')}`;
}

/**
 * Deletes every key under `prefix:` and nothing else (never FLUSHALL: the Redis may be shared). On a cluster
 * SCAN sees one node's keys only, so every master is scanned, and keys are unlinked one by one (their slots differ).
 */
export async function deletePrefixKeys(redis: Redis | Cluster, prefix: string): Promise<number> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  let deleted = 0;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      const counts = await Promise.all(keys.map((key) => node.unlink(key)));
      deleted += counts.reduce((sum, count) => sum + count, 0);
    } while (cursor !== '0');
  }
  return deleted;
}

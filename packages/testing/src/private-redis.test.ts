import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { PrivateRedis, startPrivateRedis } from './private-redis';

async function withClient<T>(url: string, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

describe('PrivateRedis', () => {
  it('keeps an acknowledged write across a restart on the same URL, and remove deletes its own directory', async () => {
    const redis = await startPrivateRedis();
    try {
      await withClient(redis.url, (client) => client.set('kept', 'yes'));
      const url = redis.url;
      await redis.restart(100);
      expect(redis.url).toBe(url);
      await expect(withClient(redis.url, (client) => client.get('kept'))).resolves.toBe('yes');
    } finally {
      await redis.remove();
    }
    expect(existsSync(redis.dir)).toBe(false);
  });

  it('keeps a write acknowledged before a SIGKILL, and leaves a directory the caller gave', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hw-redis-test-'));
    const redis = new PrivateRedis({ dir });
    try {
      await redis.start();
      await withClient(redis.url, (client) => client.set('kept', 'after a crash'));
      await redis.stop('SIGKILL');
      await redis.start();
      await expect(withClient(redis.url, (client) => client.get('kept'))).resolves.toBe('after a crash');
      await redis.remove();
      expect(existsSync(path.join(dir, 'redis'))).toBe(true);
    } finally {
      await redis.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

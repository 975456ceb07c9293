import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Cluster } from 'ioredis';
import { PrivateRedisCluster } from '@hashwatch/testing';
import { createRedisConnection, SLOTS_REFRESH_INTERVAL_MS, untilReady } from './redis-connection';

/** A key of the form `hw-slots-<n>`, other than `skip`, whose master is `port`. */
function keyOn(cluster: PrivateRedisCluster, port: number, skip = ''): string {
  for (let n = 0; n < 1_000; n += 1) {
    const key = `hw-slots-${n}`;
    if (key !== skip && cluster.masterOf(key) === port) return key;
  }
  throw new Error('no such key');
}

/**
 * A slot that changes owner under a client that auto-pipelines (the notifier's drains, the gateway): ioredis hands
 * the MOVED of a pipeline that also holds a write that succeeded back to the caller and keeps its slot map, so
 * without a periodic reload every command for that slot would fail for as long as the process lives.
 */
describe('a cluster client after a slot changed owner', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-slots-'));
  const cluster = new PrivateRedisCluster(dir);

  beforeAll(() => cluster.start(), 90_000);
  afterAll(async () => {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is answered MOVED at most until its next slot-map reload, then reaches the new owner', async () => {
    const [first = 0, second = 0] = cluster.nodes.split(',').map((node) => Number(node.split(':')[1]));
    const redis = createRedisConnection({ clusterNodes: [{ host: '127.0.0.1', port: first }] }, { role: 'producer', autoPipelining: true }) as Cluster;
    try {
      await untilReady(redis);
      // Two keys of different slots on one master: auto-pipelining sends their commands together.
      const moving = keyOn(cluster, first);
      const staying = keyOn(cluster, first, moving);
      await redis.set(staying, 'before');
      cluster.moveEmptySlot(moving, second);

      const started = Date.now();
      const errors: string[] = [];
      for (;;) {
        const [stay, move] = await Promise.allSettled([redis.set(staying, 'x'), redis.set(moving, 'y')]);
        if (stay.status === 'fulfilled' && move.status === 'fulfilled') break;
        for (const result of [stay, move]) if (result.status === 'rejected') errors.push(String(result.reason));
        if (Date.now() - started > SLOTS_REFRESH_INTERVAL_MS + 3_000) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Refused (MOVED, unless a reload fell between the move and the first attempt) at most until one reload.
      const healedMs = Date.now() - started;
      expect(healedMs <= SLOTS_REFRESH_INTERVAL_MS + 1_000 ? 'healed' : `still refused after ${healedMs} ms: ${errors.slice(0, 3).join('; ')}`).toBe('healed');
      expect(await redis.get(moving)).toBe('y');
      expect(cluster.masterOf(moving)).toBe(second);
    } finally {
      redis.disconnect();
    }
  });
});

import { Cluster } from 'ioredis';
import { keySlot } from '@hashwatch/testing';
import { enqueue } from './enqueue';
import { queueNames, type QueueName } from './queue-catalog';
import { queueKey, queueKeyPrefix } from './queue-keys';
import type { RedisClient } from './redis-connection';
import { useQueueFixture, waitForState } from './test-support/use-queue-fixture';
import { upsertScheduler } from './upsert-scheduler';

/** Every key under the prefix, from every master on a cluster. */
async function keysUnder(redis: RedisClient, prefix: string): Promise<string[]> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const keys: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
  }
  return keys;
}

describe('the key layout of the queues', () => {
  const fx = useQueueFixture();

  it('names a queue key <prefix>:{<queue>}:<queue>:<part>', () => {
    expect(queueKeyPrefix('hw', 'alert-routing')).toBe('hw:{alert-routing}');
    expect(queueKey('hw', 'alert-routing', 'wait')).toBe('hw:{alert-routing}:alert-routing:wait');
  });

  it('puts the queues of the catalog in different slots, spread over three masters of an even cluster', () => {
    const slots = queueNames.map((name) => keySlot(queueKey('hw', name, 'wait')));
    expect(new Set(slots).size).toBe(queueNames.length);
    // redis-cli --cluster create splits the slots of three masters at 5461 and 10923.
    const master = (slot: number) => (slot < 5461 ? 0 : slot < 10923 ? 1 : 2);
    expect(new Set(slots.map(master)).size).toBe(3);
  });

  it('keeps every key BullMQ writes for a queue (jobs, delays, retries, schedulers, events) in that queue slot', async () => {
    const handled: string[] = [];
    fx.startWorker('source-scans', {
      'scan-sources': async () => undefined,
      'reconcile-schedulers': async (_payload, job) => {
        handled.push(String(job.id));
        if (job.attemptsMade === 0) throw new Error('the first attempt fails, so the job waits for a retry');
      },
    });
    await enqueue(fx.queues, 'outbox-relay', 'relay-outbox', {}, { jobId: 'relay-waiting' });
    await enqueue(fx.queues, 'alert-deliveries', 'deliver-alert', { deliveryId: 'd1' }, { jobId: 'deliver-later', delay: 60_000 });
    await upsertScheduler(fx.queues, 'source-scans', 'scan-sources', { intervalSeconds: 60 }, { schedulerId: 'scan-every-60s', everyMs: 60_000 });
    await enqueue(fx.queues, 'source-scans', 'reconcile-schedulers', {}, { jobId: 'reconcile-retried' });
    await waitForState(fx.queues.byName['source-scans'], 'reconcile-retried', 'completed');

    const keys = await keysUnder(fx.producer, fx.prefix);
    const byQueue = new Map<QueueName, Set<number>>();
    for (const key of keys) {
      const name = queueNames.find((queue) => key.startsWith(`${queueKeyPrefix(fx.prefix, queue)}:${queue}:`));
      expect(name).toBeDefined();
      if (!name) continue;
      byQueue.set(name, (byQueue.get(name) ?? new Set()).add(keySlot(key)));
    }
    for (const name of ['outbox-relay', 'alert-deliveries', 'source-scans'] as const) {
      expect([...(byQueue.get(name) ?? [])]).toEqual([keySlot(queueKey(fx.prefix, name, 'wait'))]);
    }
    expect(handled).toEqual(['reconcile-retried', 'reconcile-retried']);
  });
});

import { transaction } from '@hashwatch/db';
import { createQueues, createRedisConnection, type Queues } from '@hashwatch/queues';
import { useTestEnvironment } from '@hashwatch/testing';
import { relayOutbox, writeOutbox } from './outbox';

describe('outbox', () => {
  const env = useTestEnvironment();
  let queues: Queues;

  beforeAll(() => {
    queues = createQueues({ connection: createRedisConnection(env.redisUrl, { role: 'producer' }), prefix: env.queuePrefix });
  });
  afterAll(async () => {
    await queues.close();
  });

  const entry = (n: number) => ({ queue: 'alert-routing', name: 'route-alert', jobId: `route-post_${n}`, payload: { feedItemId: `post_${n}`, userId: 'usr_1' } });

  it('writes nothing when the transaction rolls back', async () => {
    await expect(
      transaction(env.database.db.pool, async (client) => {
        await writeOutbox(client, [entry(1)]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(0);
  });

  it('relays committed rows into their queue once, and deletes them', async () => {
    await transaction(env.database.db.pool, (client) => writeOutbox(client, [entry(2), entry(3)]));
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(2);
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(0);
    const job = await queues.byName['alert-routing'].getJob('route-post_2');
    expect(job?.data).toEqual({ feedItemId: 'post_2', userId: 'usr_1' });
  });

  it('adds a job once even when the same entry is relayed twice (crash after enqueue, before delete)', async () => {
    await transaction(env.database.db.pool, (client) => writeOutbox(client, [entry(4)]));
    await transaction(env.database.db.pool, (client) => writeOutbox(client, [entry(4)]));
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(2);
    expect(await queues.byName['alert-routing'].getJobCountByTypes('waiting', 'delayed', 'prioritized')).toBe(3);
  });

  it('keeps the rows when Redis refuses, and relays them once it answers', async () => {
    await transaction(env.database.db.pool, (client) => writeOutbox(client, [entry(5)]));
    const connection = createRedisConnection('redis://127.0.0.1:1', { role: 'producer' });
    const down = createQueues({ connection, prefix: env.queuePrefix });
    await expect(relayOutbox(env.database.db.pool, down, { enqueueTimeoutMs: 300 })).rejects.toThrow(/within 300 ms/);
    connection.disconnect();
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(1);
  });

  it('drops a row whose payload no longer parses instead of blocking the others', async () => {
    const invalid: string[] = [];
    await transaction(env.database.db.pool, (client) => writeOutbox(client, [{ ...entry(6), payload: { feedItemId: 42 } }, entry(7)]));
    expect(await relayOutbox(env.database.db.pool, queues, { onInvalid: (id) => invalid.push(id) })).toBe(2);
    expect(invalid).toEqual(['route-post_6']);
    expect(await queues.byName['alert-routing'].getJob('route-post_7')).toBeDefined();
  });
});

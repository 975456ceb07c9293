import { transaction } from '@hashwatch/db';
import { createRedisConnection, listSchedulers, upsertScheduler, type DefinedWorker, type RedisClient } from '@hashwatch/queues';
import { useTestQueues } from '@hashwatch/queues/testing';
import { captureLogger, useTestEnvironment, waitFor } from '@hashwatch/testing';
import { writeOutbox } from './outbox';
import { startOutboxRelay } from './relay-worker';

describe('the outbox relay', () => {
  const env = useTestEnvironment();
  const testQueues = useTestQueues(env);
  const workers: DefinedWorker<'outbox-relay'>[] = [];
  let connection: RedisClient | undefined;

  beforeAll(() => {
    connection = createRedisConnection(env.redisTarget, { role: 'worker' });
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    connection?.disconnect();
  });

  async function start(everyMs: number) {
    const { logger, lines } = captureLogger();
    const relay = await startOutboxRelay({ pool: env.database.db.pool, queues: testQueues.queues, everyMs, connection: connection!, prefix: env.queuePrefix, logger });
    workers.push(relay);
    return lines;
  }

  it('moves a row its writer never relayed into its queue within one period, on one scheduler that replaces any other', async () => {
    // An older release's backstop, on another cadence: it would tick beside the relay's own.
    await upsertScheduler(testQueues.queues, 'outbox-relay', 'relay-outbox', {}, { schedulerId: 'relay-outbox-every-5s', everyMs: 5_000 });

    const lines = await start(300);

    expect((await listSchedulers(testQueues.queues, 'outbox-relay')).map((scheduler) => [scheduler.id, scheduler.everyMs])).toEqual([['relay-outbox-every-1s', 300]]);
    expect(lines).toContainEqual(expect.objectContaining({ message: 'outbox relay scheduler replaced', removed: 'relay-outbox-every-5s' }));
    const written = Date.now();
    await transaction(env.database.db.pool, (client) =>
      writeOutbox(client, [{ queue: 'alert-routing', name: 'route-alerts', jobId: 'route-post_relayed', payload: { items: [{ feedItemId: 'post_relayed', userId: 'usr_1' }] } }]),
    );
    // Relayed: the job is in its queue and the row is gone (deleted once the job is added).
    const relayed = async () =>
      (await testQueues.queues.byName['alert-routing'].getJob('route-post_relayed')) !== undefined &&
      (await env.database.db.pool.query('SELECT 1 FROM outbox_jobs')).rowCount === 0;
    await waitFor(relayed, 5_000, 'the relayed job');
    expect(Date.now() - written).toBeLessThan(2_000);
  });

  it('keeps one scheduler when a second replica starts with the same period', async () => {
    await start(300);
    expect((await listSchedulers(testQueues.queues, 'outbox-relay')).map((scheduler) => scheduler.id)).toEqual(['relay-outbox-every-1s']);
  });
});

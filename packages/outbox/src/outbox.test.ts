import { transaction } from '@hashwatch/db';
import { createQueues, createRedisConnection, routeAlertsJobs, type Queues } from '@hashwatch/queues';
import { useTestQueues } from '@hashwatch/queues/testing';
import { useTestEnvironment } from '@hashwatch/testing';
import { numberedOutboxStatement, relayOutbox, relayWritten, writeNumberedOutbox, writeOutbox, writeOutboxBatch, relayOutboxUntilEmpty, type OutboxEntry } from './outbox';

describe('outbox', () => {
  const env = useTestEnvironment();
  let queues: Queues;

  const testQueues = useTestQueues(env);
  beforeAll(() => {
    ({ queues } = testQueues);
  });

  const entry = (n: number): OutboxEntry => ({ queue: 'alert-routing', name: 'route-alerts', jobId: `route-post_${n}`, payload: { items: [{ feedItemId: `post_${n}`, userId: 'usr_1' }] } });
  /**
   * A row whose payload the catalog does not accept (any more): left by an older release, or written before a
   * schema change. The compiler refuses such an entry, so it is forced past it here.
   */
  const stale = (n: number, payload: unknown) => ({ ...entry(n), payload }) as unknown as OutboxEntry;

  it.each([
    ['a row per job', writeOutbox, 1],
    ['a batch row', writeOutboxBatch, 30],
  ] as const)('writes nothing (%s) when the transaction rolls back', async (_kind, write, n) => {
    await expect(
      transaction(env.database.db.pool, async (client) => {
        await write(client, [entry(n)]);
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
    expect(job?.data).toEqual({ items: [{ feedItemId: 'post_2', userId: 'usr_1' }] });
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
    try {
      await expect(relayOutbox(env.database.db.pool, down, { enqueueTimeoutMs: 300 })).rejects.toThrow(/within 300 ms/);
    } finally {
      await down.close();
      connection.disconnect();
    }
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(1);
  });

  it('drops a row whose payload is not even an object instead of blocking the others', async () => {
    const invalid: string[] = [];
    await env.database.db.pool.query(`INSERT INTO outbox_jobs (queue, name, job_id, payload) VALUES ('alert-routing', 'route-alerts', 'routes-null', 'null'::jsonb)`);
    await transaction(env.database.db.pool, (client) => writeOutbox(client, [entry(8)]));
    expect(await relayOutbox(env.database.db.pool, queues, { onInvalid: (id) => invalid.push(id) })).toBe(2);
    expect(invalid).toEqual(['routes-null']);
    expect(await queues.byName['alert-routing'].getJob('route-post_8')).toBeDefined();
  });

  it('drops a row whose payload no longer parses instead of blocking the others', async () => {
    const invalid: string[] = [];
    await transaction(env.database.db.pool, (client) => writeOutbox(client, [stale(6, { feedItemId: 42 }), entry(7)]));
    expect(await relayOutbox(env.database.db.pool, queues, { onInvalid: (id) => invalid.push(id) })).toBe(2);
    expect(invalid).toEqual(['route-post_6']);
    expect(await queues.byName['alert-routing'].getJob('route-post_7')).toBeDefined();
  });

  it('writes a batch as one row and relays it as one job per entry, with the same ids and payloads', async () => {
    const written = await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, [entry(10), entry(11), entry(12)]));
    expect(written.rowIds).toHaveLength(1);
    const { rows } = await env.database.db.pool.query('SELECT job_id FROM outbox_jobs');
    expect(rows).toEqual([{ job_id: 'route-post_10' }]);
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(3);
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(0);
    for (const n of [10, 11, 12]) {
      expect((await queues.byName['alert-routing'].getJob(`route-post_${n}`))?.data).toEqual({ items: [{ feedItemId: `post_${n}`, userId: 'usr_1' }] });
    }
  });

  /** Jobs of the alert-routing queue, in any state, that carry one of these feed items: what the notifier would route. */
  const jobsFor = async (...items: number[]) => {
    const wanted = new Set(items.map((n) => `post_${n}`));
    const jobs = await queues.byName['alert-routing'].getJobs(['waiting', 'delayed', 'prioritized', 'active', 'completed', 'failed']);
    return jobs.filter((job) => wanted.has((job.data as { items: { feedItemId: string }[] }).items[0]?.feedItemId ?? '')).map((job) => job.id).sort();
  };

  it('relays what it just wrote straight from memory and deletes the row, leaving the backstop nothing', async () => {
    const written = await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, [entry(20), entry(21)]));
    expect(await relayWritten(env.database.db.pool, queues, written)).toBe(2);
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(0);
    expect(await jobsFor(20, 21)).toEqual(['route-post_20', 'route-post_21']);
  });

  it('leaves one job per entry, under its own id, when the backstop relayed the row before the writer did', async () => {
    const written = await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, [entry(22), entry(23)]));
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(2);
    expect(await relayWritten(env.database.db.pool, queues, written)).toBe(2);
    const { rowCount } = await env.database.db.pool.query('SELECT 1 FROM outbox_jobs');
    expect(rowCount).toBe(0);
    expect(await jobsFor(22, 23)).toEqual(['route-post_22', 'route-post_23']);
  });

  it('relays at most maxJobs jobs per run, counting every job of a batch row, oldest rows first', async () => {
    for (const first of [50, 53, 56]) {
      await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, [entry(first), entry(first + 1), entry(first + 2)]));
    }
    expect(await relayOutbox(env.database.db.pool, queues, { maxJobs: 6 })).toBe(6);
    const { rows } = await env.database.db.pool.query('SELECT job_id FROM outbox_jobs');
    expect(rows).toEqual([{ job_id: 'route-post_56' }]);
    expect(await queues.byName['alert-routing'].getJob('route-post_55')).toBeDefined();
    expect(await queues.byName['alert-routing'].getJob('route-post_56')).toBeUndefined();
    expect(await relayOutbox(env.database.db.pool, queues, { maxJobs: 6 })).toBe(3);
    expect(await relayOutbox(env.database.db.pool, queues, { maxJobs: 6 })).toBe(0);
  });

  it('relays a batch row holding more than maxJobs jobs alone, instead of leaving it behind for ever', async () => {
    await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, [entry(60), entry(61), entry(62), entry(63)]));
    await transaction(env.database.db.pool, (client) => writeOutbox(client, [entry(64)]));
    expect(await relayOutbox(env.database.db.pool, queues, { maxJobs: 3 })).toBe(4);
    expect(await relayOutbox(env.database.db.pool, queues, { maxJobs: 3 })).toBe(1);
    expect(await relayOutbox(env.database.db.pool, queues, { maxJobs: 3 })).toBe(0);
  });

  it('hands over at most 5,000 jobs per run by default, however few rows hold them', async () => {
    const many = (from: number) => Array.from({ length: 3000 }, (_, i) => entry(from + i));
    await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, many(100_000)));
    await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, many(200_000)));
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(3000);
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(3000);
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(0);
  });

  it('drains a backlog of several capped runs in one call, and stops after maxRuns', async () => {
    const many = (from: number) => Array.from({ length: 3000 }, (_, i) => entry(from + i));
    for (const from of [400_000, 500_000, 600_000]) await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, many(from)));
    expect(await relayOutboxUntilEmpty(env.database.db.pool, queues, { maxRuns: 2 })).toBe(6000);
    expect(await relayOutboxUntilEmpty(env.database.db.pool, queues)).toBe(3000);
    const { rows } = await env.database.db.pool.query('SELECT count(*)::int AS n FROM outbox_jobs');
    expect(rows[0]).toEqual({ n: 0 });
    expect(await queues.byName['alert-routing'].count()).toBeGreaterThanOrEqual(9000);
  });

  it('gives a row of more than 5,000 jobs a timeout per 5,000 jobs begun', async () => {
    const written = await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, Array.from({ length: 5001 }, (_, i) => entry(300_000 + i))));
    const connection = createRedisConnection('redis://127.0.0.1:1', { role: 'producer' });
    const down = createQueues({ connection, prefix: env.queuePrefix });
    try {
      await expect(relayWritten(env.database.db.pool, down, written, { enqueueTimeoutMs: 200 })).rejects.toThrow(/within 400 ms/);
    } finally {
      await down.close();
      connection.disconnect();
    }
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(5001);
  });

  it('runs a statement alongside the batch insert, its parameters numbered first, even with no entries', async () => {
    const single = (n: number) => ({
      text: `INSERT INTO outbox_jobs (queue, name, job_id, payload) VALUES ($1, $2, $3, $4::jsonb)`,
      values: ['alert-routing', 'route-alerts', `route-post_${n}`, JSON.stringify(entry(n).payload)],
    });
    const written = await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, [entry(70), entry(71)], single(72)));
    expect(written.rowIds).toHaveLength(1);
    await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, [], single(73)));
    const { rows } = await env.database.db.pool.query('SELECT job_id FROM outbox_jobs ORDER BY job_id');
    expect(rows).toEqual([{ job_id: 'route-post_70' }, { job_id: 'route-post_72' }, { job_id: 'route-post_73' }]);
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(4);
  });

  const items = (count: number, from: number) => Array.from({ length: count }, (_, i) => ({ feedItemId: `post_${from + i}`, userId: 'usr_1' }));
  /** Route-alerts jobs in any state: their ids and the feed items they carry. */
  const batchJobs = async () => {
    const jobs = await queues.byName['alert-routing'].getJobs(['waiting', 'delayed', 'prioritized', 'active', 'completed', 'failed']);
    return jobs
      .filter((job) => job.name === 'route-alerts')
      .map((job) => ({ id: job.id, items: (job.data as { items: { feedItemId: string }[] }).items.map((item) => item.feedItemId) }));
  };

  it('relays a row of route-alerts jobs as those jobs, each carrying up to 500 items, not as one job per item', async () => {
    const jobs = routeAlertsJobs(items(1200, 700_000));
    const written = await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, jobs));
    expect(written.rowIds).toHaveLength(1);
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(3);
    const relayed = (await batchJobs()).filter((job) => jobs.some((entry) => entry.jobId === job.id));
    expect(relayed.map((job) => job.items.length).sort()).toEqual([200, 500, 500]);
    expect(relayed.flatMap((job) => job.items).sort()).toEqual(items(1200, 700_000).map((item) => item.feedItemId).sort());
    expect(await queues.byName['alert-routing'].getJob(`route-post_700000`)).toBeUndefined();
  });

  it('adds each batch job once when the backstop and the writer both relay the row (a relay retried after a crash)', async () => {
    const jobs = routeAlertsJobs(items(600, 710_000));
    const written = await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, jobs));
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(2);
    expect(await relayWritten(env.database.db.pool, queues, written)).toBe(2);
    // The same items written again (a writer retrying its relay from a copy of the row) make the same jobs.
    await transaction(env.database.db.pool, (client) => writeOutbox(client, routeAlertsJobs(items(600, 710_000))));
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(2);
    const relayed = (await batchJobs()).filter((job) => jobs.some((entry) => entry.jobId === job.id));
    expect(relayed.map((job) => job.id).sort()).toEqual(jobs.map((job) => job.jobId).sort());
    expect(relayed.flatMap((job) => job.items)).toHaveLength(600);
  });

  it('counts a batch job once per item it carries against maxJobs', async () => {
    await env.database.db.pool.query('DELETE FROM outbox_jobs');
    for (const from of [720_000, 720_010]) {
      await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, routeAlertsJobs(items(6, from), 3)));
    }
    // Each row holds two jobs of three items: six against the cap, so a cap of 8 takes one row.
    expect(await relayOutbox(env.database.db.pool, queues, { maxJobs: 8 })).toBe(2);
    expect(await relayOutbox(env.database.db.pool, queues, { maxJobs: 8 })).toBe(2);
    expect(await relayOutbox(env.database.db.pool, queues, { maxJobs: 8 })).toBe(0);
  });

  it('weighs every row in PostgreSQL, whoever wrote it: 1 per job, a batch job once per item, a batch row as its jobs', async () => {
    await env.database.db.pool.query('DELETE FROM outbox_jobs');
    const payloads: [string, number][] = [
      ['{"feedItemId":"post_1"}', 1],
      ['{"items":[1,2,3]}', 3],
      ['{"items":[]}', 1],
      ['{"items":"not a list"}', 1],
      ['"not an object"', 1],
      ['[{"jobId":"a","payload":{"items":[1,2]}},{"jobId":"b","payload":{"x":1}},{"jobId":"c","payload":{"items":[1,2,3,4]}}]', 7],
      ['[]', 0],
    ];
    // A plain insert, as the gateway writes its redelivery rows: the weight is the database's, not the writer's.
    const { rows } = await env.database.db.pool.query<{ weight: number }>(
      `INSERT INTO outbox_jobs (queue, name, job_id, payload) SELECT 'alert-routing', 'route-alerts', 'w' || n, p::jsonb
         FROM unnest($1::text[]) WITH ORDINALITY AS t(p, n) RETURNING weight`,
      [payloads.map(([payload]) => payload)],
    );
    expect(rows.map((row) => row.weight)).toEqual(payloads.map(([, weight]) => weight));
    await expect(env.database.db.pool.query(`UPDATE outbox_jobs SET weight = 99`)).rejects.toThrow(/can only be updated to DEFAULT/);
    await env.database.db.pool.query('DELETE FROM outbox_jobs');

    // What a writer gets back is the same count.
    const written = await transaction(env.database.db.pool, (client) =>
      writeOutboxBatch(client, [...routeAlertsJobs(items(5, 730_000), 2), entry(730_100), entry(730_101)]),
    );
    expect(written.weight).toBe(7);
    expect(await relayWritten(env.database.db.pool, queues, written)).toBe(5);
  });

  it('keeps a batch row when Redis refuses, and drops only the invalid job of it once Redis answers', async () => {
    const written = await transaction(env.database.db.pool, (client) => writeOutboxBatch(client, [entry(40), stale(41, { feedItemId: 41 })]));
    const connection = createRedisConnection('redis://127.0.0.1:1', { role: 'producer' });
    const down = createQueues({ connection, prefix: env.queuePrefix });
    try {
      await expect(relayWritten(env.database.db.pool, down, written, { enqueueTimeoutMs: 300 })).rejects.toThrow(/within 300 ms/);
    } finally {
      await down.close();
      connection.disconnect();
    }
    const invalid: string[] = [];
    expect(await relayOutbox(env.database.db.pool, queues, { onInvalid: (id) => invalid.push(id) })).toBe(2);
    expect(invalid).toEqual(['route-post_41']);
    expect(await queues.byName['alert-routing'].getJob('route-post_40')).toBeDefined();
  });

  it('accepts only the jobs the queue catalog declares, each with its own payload (checked by the compiler)', () => {
    const known: OutboxEntry[] = [
      { queue: 'alert-deliveries', name: 'drain-channel', jobId: 'drain-wh_1', payload: { channelId: 'wh_1' } },
      { queue: 'source-scans', name: 'reconcile-schedulers', jobId: 'reconcile-1', payload: {} },
    ];
    const unknown = [
      // @ts-expect-error a job the queue does not declare
      { queue: 'alert-deliveries', name: 'route-alerts', jobId: 'x', payload: { items: [] } } satisfies OutboxEntry,
      // @ts-expect-error a queue the catalog does not declare
      { queue: 'deliveries', name: 'drain-channel', jobId: 'x', payload: { channelId: 'wh_1' } } satisfies OutboxEntry,
      // @ts-expect-error another job's payload
      { queue: 'alert-deliveries', name: 'drain-channel', jobId: 'x', payload: { deliveryId: 'dlv_1' } } satisfies OutboxEntry,
    ];
    expect([known.length, unknown.length]).toEqual([2, 3]);
  });

  it('builds numbered writes as one statement for a Prisma batch, each job id from its own row, and refuses a payload the catalog does not', async () => {
    await env.database.db.pool.query('DELETE FROM outbox_jobs');
    const statement = numberedOutboxStatement([
      { queue: 'source-scans', name: 'reconcile-schedulers', payload: {}, jobIdPrefix: 'reconcile-schedulers-' },
      { queue: 'engagement-refreshes', name: 'reconcile-schedulers', payload: {}, jobIdPrefix: 'reconcile-schedulers-' },
    ]);
    await env.database.db.pool.query(statement.text, statement.values);
    await env.database.db.pool.query(statement.text, statement.values);
    const { rows } = await env.database.db.pool.query<{ id: string; queue: string; job_id: string; payload: unknown }>('SELECT id::text, queue, job_id, payload FROM outbox_jobs ORDER BY id');
    expect(rows.map((row) => row.queue)).toEqual(['source-scans', 'engagement-refreshes', 'source-scans', 'engagement-refreshes']);
    expect(rows.map((row) => row.job_id)).toEqual(rows.map((row) => `reconcile-schedulers-${row.id}`));
    expect(rows.every((row) => JSON.stringify(row.payload) === '{}')).toBe(true);
    expect(() => numberedOutboxStatement([{ queue: 'source-scans', name: 'scan-sources', payload: { intervalSeconds: 0 }, jobIdPrefix: 'scan-' }])).toThrow(/intervalSeconds/);
    await env.database.db.pool.query('DELETE FROM outbox_jobs');
  });

  it('writes a numbered job under an id made from its own row number, a new one on every write, relayed once', async () => {
    await env.database.db.pool.query('DELETE FROM outbox_jobs');
    const write = () =>
      transaction(env.database.db.pool, (client) =>
        writeNumberedOutbox(client, [{ queue: 'alert-routing', name: 'route-alerts', jobIdPrefix: 'route-post_800-retry-', payload: { items: [{ feedItemId: 'post_800', userId: 'usr_1' }] } }]),
      ).then(([jobId]) => ({ jobId: jobId as string }));
    const [first, second] = [await write(), await write()];
    expect(first.jobId).toMatch(/^route-post_800-retry-\d+$/);
    expect(second.jobId).not.toBe(first.jobId);
    const { rows } = await env.database.db.pool.query<{ id: string; job_id: string }>('SELECT id::text, job_id FROM outbox_jobs ORDER BY id');
    expect(rows.map((row) => row.job_id)).toEqual([first.jobId, second.jobId]);
    expect(rows.map((row) => `route-post_800-retry-${row.id}`)).toEqual([first.jobId, second.jobId]);
    expect(await relayOutbox(env.database.db.pool, queues)).toBe(2);
    expect(await queues.byName['alert-routing'].getJob(first.jobId)).toBeDefined();
    expect(await queues.byName['alert-routing'].getJob(second.jobId)).toBeDefined();
  });
});

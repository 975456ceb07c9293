import { setTimeout as sleep } from 'node:timers/promises';
import { createRedisConnection, listSchedulers, removeScheduler, type DefinedWorker, type QueueName } from '@hashwatch/queues';
import { reconcileScanSchedulers } from './scan-schedulers';
import { startScannerWorkers } from './scanner-workers';
import { waitFor } from '@hashwatch/testing';
import { useScannerFixture, type ScannerFixture } from './test-support/scanner-fixture';

const TAGS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];

/** Three accounts with overlapping tags, one also following an author who writes about them. */
async function tenants(fx: ScannerFixture, prefix: string, options: { scanIntervalSeconds?: number } = {}) {
  const users = [await fx.account(options), await fx.account(options), await fx.account(options)];
  const tags = TAGS.map((tag) => `${prefix}${tag}`);
  for (const [index, user] of users.entries()) {
    for (const tag of tags.filter((_, i) => i % 3 !== index)) await fx.track(user, tag);
  }
  await fx.accountTrack(users[0] as string, `${prefix}writer`);
  fx.sim.state.createUser({ username: `${prefix}writer` });
  return { users, tags };
}

function injectPosts(fx: ScannerFixture, prefix: string, tags: string[], count: number): void {
  for (let i = 0; i < count; i += 1) {
    const author = i % 5 === 0 ? `${prefix}writer` : `${prefix}a${i % 11}`;
    fx.sim.state.injectPost({ author, text: `#${tags[i % tags.length]} and #${tags[(i * 7 + 3) % tags.length]} ${i}` });
  }
}

/**
 * What must hold whatever the interleaving: per account, one item per post and one quota unit per item; every
 * item carried by exactly one route-alerts job and nothing else carried, each job added to BullMQ once (no relay
 * here races the scanner's own), and no item written twice to what is left in the outbox.
 */
async function expectExactlyOnce(fx: ScannerFixture, users: string[]): Promise<number> {
  const { rows: duplicates } = await fx.pool().query(
    `SELECT user_id, x_post_id, count(*) FROM feed_items WHERE user_id = ANY($1) GROUP BY 1, 2 HAVING count(*) > 1`,
    [users],
  );
  expect(duplicates).toEqual([]);
  let total = 0;
  for (const user of users) {
    const items = await fx.items(user);
    total += items.length;
    expect(await fx.usage(user)).toMatchObject({ alerts_used: items.length });
  }
  // A batch row holds many route-alerts jobs under the first one's job_id: count every item of every job of every row.
  const { rows: outbox } = await fx.pool().query<{ feed_item_id: string; n: number }>(
    `SELECT i->>'feedItemId' AS feed_item_id, count(*)::int AS n
       FROM outbox_jobs o,
            LATERAL (SELECT e->'payload' AS payload FROM jsonb_array_elements(o.payload) e WHERE jsonb_typeof(o.payload) = 'array'
                     UNION ALL SELECT o.payload WHERE jsonb_typeof(o.payload) <> 'array') j,
            LATERAL jsonb_array_elements(j.payload->'items') i
      GROUP BY 1 HAVING count(*) > 1`,
  );
  expect(outbox).toEqual([]);
  const { rows } = await fx.pool().query<{ id: string }>('SELECT id FROM feed_items WHERE user_id = ANY($1)', [users]);
  const expectedItems = rows.map((row) => row.id).sort();
  const ours = async () => (await fx.alertJobs()).filter((job) => users.includes(job.userId));
  await waitFor(async () => (await ours()).length >= expectedItems.length, 10_000, 'an alert job for every item');
  expect((await ours()).map((job) => job.feedItemId).sort()).toEqual(expectedItems);
  const ourJobs = new Set((await ours()).map((job) => job.id));
  expect((await fx.duplicatedAlertJobIds()).filter((id) => ourJobs.has(id))).toEqual([]);
  return total;
}

/** Per account, the posts it should have: those holding one of its tags, or written by the author it follows. */
async function expectedItems(fx: ScannerFixture, users: string[], prefix: string): Promise<number> {
  const { rows: tracks } = await fx.pool().query<{ user_id: string; hashtag_norm: string }>('SELECT user_id, hashtag_norm FROM tracks WHERE user_id = ANY($1)', [users]);
  const { rows: follows } = await fx.pool().query<{ user_id: string; username_norm: string }>('SELECT user_id, username_norm FROM account_tracks WHERE user_id = ANY($1)', [users]);
  const posts = fx.sim.state.store.latest(100_000).filter((post) => fx.sim.state.store.userById(post.authorId)?.username.startsWith(prefix));
  let expected = 0;
  for (const user of users) {
    const tags = new Set(tracks.filter((t) => t.user_id === user).map((t) => t.hashtag_norm));
    const authors = new Set(follows.filter((f) => f.user_id === user).map((f) => f.username_norm));
    for (const post of posts) {
      const author = fx.sim.state.store.userById(post.authorId)?.username ?? '';
      if (authors.has(author) || post.entities.hashtags.some((h) => tags.has(h.tag.toLowerCase()))) expected += 1;
    }
  }
  return expected;
}

describe('scanner replicas', () => {
  const fx = useScannerFixture();

  it('never stores, counts or alerts twice, nor sends a query twice, when two replicas tick at once', async () => {
    const { users, tags } = await tenants(fx, 'r1');
    injectPosts(fx, 'r1', tags, 300);
    await fx.makeDue();
    const before = fx.searchRequests();
    // Small claims make the replicas interleave: each takes a few sources at a time.
    const [a, b] = await Promise.all([fx.scanner({ claimBatchSize: 3 }).runTick(), fx.scanner({ claimBatchSize: 3 }).runTick()]);

    // Each source scanned by exactly one of them (which one is up to timing).
    expect(a.scanned + b.scanned).toBe(TAGS.length + 1);
    expect(a.claimed + b.claimed).toBe(TAGS.length + 1);
    const firstPages = fx.sim.state.requestLog
      .entries({ endpoint: 'search_recent' })
      .slice(before)
      .filter((entry) => entry.query.next_token === undefined)
      .map((entry) => String(entry.query.query));
    const mentions = tags.map((tag) => firstPages.filter((query) => query.includes(`#${tag} `) || query.includes(`#${tag})`)).length);
    expect(mentions).toEqual(tags.map(() => 1));

    expect(await expectExactlyOnce(fx, users)).toBe(await expectedItems(fx, users, 'r1'));
  });

  it('stores every post exactly once with two real workers on one queue prefix, scheduled by BullMQ', async () => {
    const { users, tags } = await tenants(fx, 'r2', { scanIntervalSeconds: 1 });
    const workers: DefinedWorker<QueueName>[] = [];
    const connections = [createRedisConnection(fx.env.redisUrl, { role: 'worker' }), createRedisConnection(fx.env.redisUrl, { role: 'worker' })];
    try {
      for (const connection of connections) {
        workers.push(
          ...startScannerWorkers({ pool: fx.pool(), queues: fx.queues, scanner: fx.scanner({ claimBatchSize: 4 }), connection, prefix: fx.env.queuePrefix, logger: fx.logger }),
        );
      }
      await reconcileScanSchedulers(fx.pool(), fx.queues);
      for (let round = 0; round < 6; round += 1) {
        injectPosts(fx, 'r2', tags, 40);
        await sleep(400);
      }
      const expected = await expectedItems(fx, users, 'r2');
      await waitFor(async () => {
        const { rows } = await fx.pool().query<{ n: number }>('SELECT count(*)::int AS n FROM feed_items WHERE user_id = ANY($1)', [users]);
        return rows[0]?.n === expected;
      }, 20_000, 'every post stored');
      expect(await expectExactlyOnce(fx, users)).toBe(expected);
      const { rows } = await fx.pool().query<{ n: number }>(`SELECT count(*)::int AS n FROM source_cursors WHERE last_error IS NOT NULL`);
      expect(rows[0]?.n).toBe(0);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      for (const connection of connections) connection.disconnect();
      for (const scheduler of await listSchedulers(fx.queues, 'source-scans')) await removeScheduler(fx.queues, 'source-scans', scheduler.id);
    }
  });

  it('lets a since poller see every item exactly once while two replicas store concurrently', async () => {
    const { users, tags } = await tenants(fx, 'r3');
    const owner = users[1] as string;
    const seen: string[] = [];
    let since = new Date(0);
    const poll = async () => {
      // GET /v1/posts?since= followed to the last page: every item detected strictly after `since`.
      const { rows } = await fx.pool().query<{ id: string; detected_at: Date }>(
        'SELECT id, detected_at FROM feed_items WHERE user_id = $1 AND detected_at > $2 ORDER BY detected_at, id',
        [owner, since],
      );
      const last = rows.at(-1);
      if (last) since = last.detected_at;
      seen.push(...rows.map((row) => row.id));
    };

    let running = true;
    const replica = async () => {
      const scanner = fx.scanner({ claimBatchSize: 2, packConcurrency: 2 });
      while (running) {
        await fx.makeDue();
        await scanner.runTick();
      }
    };
    const poller = (async () => {
      while (running) {
        await poll();
        await sleep(1);
      }
    })();
    const replicas = [replica(), replica()];
    for (let round = 0; round < 15; round += 1) {
      injectPosts(fx, 'r3', tags, 20);
      await sleep(100);
    }
    await sleep(500);
    running = false;
    await Promise.all([...replicas, poller]);
    await fx.makeDue();
    await fx.scanner().runTick();
    await poll();

    const stored = (await fx.items(owner)).map((item) => item.id);
    expect(stored.length).toBeGreaterThan(100);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...stored].sort());
    await expectExactlyOnce(fx, users);
  });
});

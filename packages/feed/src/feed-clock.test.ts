import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { createAccount } from '@hashwatch/accounts';
import { transaction } from '@hashwatch/db';
import { useTestEnvironment } from '@hashwatch/testing';
import { insertFeedItems } from './insert-feed-items';
import { hashtagPost } from './test-support/hashtag-post';

interface SeenRow {
  id: string;
  detected_at: Date;
}

/** A client polling the feed the way GET /v1/posts?since= reads it: strictly after the newest item seen. */
class SincePoller {
  since = new Date(0);
  readonly seen: string[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly userId: string,
  ) {}

  async poll(): Promise<string[]> {
    const { rows } = await this.pool.query<SeenRow>(
      'SELECT id, detected_at FROM feed_items WHERE user_id = $1 AND detected_at > $2 ORDER BY detected_at, id',
      [this.userId, this.since],
    );
    const last = rows.at(-1);
    if (last) this.since = last.detected_at;
    this.seen.push(...rows.map((row) => row.id));
    return rows.map((row) => row.id);
  }
}

const randomInt = (max: number) => Math.floor(Math.random() * (max + 1));

describe('the feed clock', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  let userId: string;
  let counter = 0;

  beforeAll(async () => {
    ({ accountId: userId } = await createAccount(env.database.db.prisma, { email: 'clock@example.com', planId: 'starter' }));
  });

  let post = 100_000;
  /** The detected_at one transaction's insert got from the clock. */
  async function takeClock(): Promise<Date> {
    post += 1;
    const { inserted } = await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, post)]));
    return (inserted[0] as { detectedAt: Date }).detectedAt;
  }

  async function newUser(): Promise<string> {
    counter += 1;
    return (await createAccount(env.database.db.prisma, { email: `clock${counter}@example.com`, planId: 'starter' })).accountId;
  }

  it('hands out whole milliseconds of the wall clock, strictly increasing across transactions', async () => {
    const before = Date.now();
    const values: number[] = [];
    for (let i = 0; i < 50; i += 1) values.push((await takeClock()).getTime());
    expect(values[0]).toBeGreaterThanOrEqual(before);
    expect(values.at(-1)).toBeLessThanOrEqual(Date.now());
    for (let i = 1; i < values.length; i += 1) expect(values[i]).toBeGreaterThan(values[i - 1] as number);
    const { rows } = await pool().query<{ us: number }>(`SELECT extract(microseconds FROM last)::int % 1000 AS us FROM feed_clock`);
    expect(rows[0]?.us).toBe(0);
  });

  it('steps 1 ms past the last value when the wall clock is behind it', async () => {
    const ahead = new Date(Date.now() + 3_600_000);
    await pool().query('UPDATE feed_clock SET last = $1 WHERE id = 1', [ahead]);
    try {
      const first = await takeClock();
      const second = await takeClock();
      expect(first.getTime()).toBe(ahead.getTime() + 1);
      expect(second.getTime()).toBe(ahead.getTime() + 2);
    } finally {
      await pool().query(`UPDATE feed_clock SET last = now() - interval '1 second' WHERE id = 1`);
    }
  });

  it('gives every item a detected_at later than every item committed before its transaction', async () => {
    const firsts = await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, 1), hashtagPost(userId, 2)]));
    const seconds = await transaction(pool(), (client) => insertFeedItems(client, [hashtagPost(userId, 3)]));
    expect(seconds.inserted[0]?.detectedAt.getTime()).toBeGreaterThan(firsts.inserted[0]?.detectedAt.getTime() as number);
  });

  it('lets a since poller see every item exactly once while writers commit concurrently with random delays', async () => {
    const owner = await newUser();
    const writers = 6;
    const transactionsPerWriter = 25;
    const written: string[] = [];
    let running = writers;
    let next = 0;

    const writer = async () => {
      // One connection per writer for its whole life, like a scanner replica's transaction.
      const client = await pool().connect();
      try {
        for (let t = 0; t < transactionsPerWriter; t += 1) {
          const batch = Array.from({ length: 1 + randomInt(4) }, () => hashtagPost(owner, (next += 1)));
          await client.query('BEGIN');
          await sleep(randomInt(5));
          const { inserted } = await insertFeedItems(client, batch);
          // Work after the insert keeps the transaction open: the case where a reader could see a later
          // item before an earlier one, if detected_at were not handed out under the clock's lock.
          await sleep(randomInt(8));
          await client.query('COMMIT');
          written.push(...inserted.map((row) => row.id));
        }
      } finally {
        client.release();
        running -= 1;
      }
    };

    const poller = new SincePoller(pool(), owner);
    const polling = (async () => {
      while (running > 0) {
        await poller.poll();
        await sleep(randomInt(2));
      }
      await poller.poll();
    })();
    await Promise.all([...Array.from({ length: writers }, writer), polling]);

    expect(written.length).toBeGreaterThanOrEqual(writers * transactionsPerWriter);
    expect(new Set(poller.seen).size).toBe(poller.seen.length);
    expect([...poller.seen].sort()).toEqual([...written].sort());
  });

  // The same property does not hold when each writer stamps its rows itself. This interleaving shows it
  // deterministically: a later transaction commits first, the poller moves `since` past the earlier
  // transaction's timestamp, and the earlier item becomes visible only below `since`.
  it('loses an item when writers stamp rows with clock_timestamp() themselves (the failure the clock prevents)', async () => {
    const owner = await newUser();
    const insertStamped = (client: pg.PoolClient, n: number) => {
      const item = hashtagPost(owner, n);
      return client.query(
        `INSERT INTO feed_items (id, user_id, dedupe_key, type, x_post_id, author, author_name, text, url, detected_at)
         VALUES ($1, $2, $3, 'hashtag', $4, $5, $6, $7, $8, date_trunc('milliseconds', clock_timestamp()))`,
        [`post_stamped${n}`, owner, item.dedupeKey, item.xPostId, item.author, item.authorName, item.text, item.url],
      );
    };
    const poller = new SincePoller(pool(), owner);
    const a = await pool().connect();
    const b = await pool().connect();
    try {
      await a.query('BEGIN');
      await insertStamped(a, 1);
      await sleep(5);
      await b.query('BEGIN');
      await insertStamped(b, 2);
      await b.query('COMMIT');
      expect(await poller.poll()).toEqual(['post_stamped2']);
      await a.query('COMMIT');
      expect(await poller.poll()).toEqual([]);
    } finally {
      a.release();
      b.release();
    }
    const { rowCount } = await pool().query('SELECT 1 FROM feed_items WHERE user_id = $1', [owner]);
    expect(rowCount).toBe(2);
    expect(poller.seen).toEqual(['post_stamped2']);
  });

  it('loses nothing in that interleaving with the feed clock: the later writer waits for the earlier commit', async () => {
    const owner = await newUser();
    const poller = new SincePoller(pool(), owner);
    const a = await pool().connect();
    const b = await pool().connect();
    try {
      await a.query('BEGIN');
      const first = await insertFeedItems(a, [hashtagPost(owner, 1)]);
      await b.query('BEGIN');
      const { rows } = await b.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const secondInsert = insertFeedItems(b, [hashtagPost(owner, 2)]);
      await waitUntilBlockedOnLock(pool(), rows[0]?.pid as number);
      expect(await poller.poll()).toEqual([]);
      await a.query('COMMIT');
      const second = await secondInsert;
      await b.query('COMMIT');
      expect(await poller.poll()).toEqual([first.inserted[0]?.id, second.inserted[0]?.id]);
      expect(second.inserted[0]?.detectedAt.getTime()).toBeGreaterThan(first.inserted[0]?.detectedAt.getTime() as number);
    } finally {
      a.release();
      b.release();
    }
  });
});

async function waitUntilBlockedOnLock(pool: pg.Pool, pid: number): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const { rows } = await pool.query<{ wait_event_type: string | null }>('SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1', [pid]);
    if (rows[0]?.wait_event_type === 'Lock') return;
    await sleep(5);
  }
  throw new Error(`backend ${pid} never waited on a lock`);
}

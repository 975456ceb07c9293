// Shared setup of the engagement benches (bench/engagement-calls.ts, bench/engagement-cycle.ts): a database
// of their own, a Redis prefix of their own, an in-process X simulator, accounts with tracks and detected
// posts, and a poller on a clock the bench moves. Everything made here is removed by `close()`.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createAccount } from '@hashwatch/accounts';
import { createDatabase, migrate, seedPlans, type Database } from '@hashwatch/db';
import { createLogger } from '@hashwatch/logger';
import { relayOutbox } from '@hashwatch/outbox';
import { createQueues, createRedisConnection, type Queues } from '@hashwatch/queues';
import { databaseUrlFor, deletePrefixKeys } from '@hashwatch/testing';
import { createXClient, type XClient } from '@hashwatch/x-api';
import { createSimulator, serveSimulator, DEFAULT_APP_TOKEN, DEFAULT_USER_TOKEN } from '@hashwatch/x-simulator';
import { createEngagementPoller, type EngagementPoller, type PollerOptions } from '@hashwatch/engagement-poller';
import { admin, cpuSecondsOf, machineDescription } from './bench-support';

export const log = (line: string) => process.stdout.write(`${line}\n`);

export function machine(): string {
  return `${machineDescription()}, load ${loadavg()[0]?.toFixed(2)}`;
}

/** The simulator's limits lifted: the benches measure calls, and the poller's own budget keeps to X's limits. */
const UNLIMITED = { app: 10_000_000, user: 10_000_000 };

export interface EngagementChange {
  id: string;
  usernames?: string[];
  anonymous?: number;
}

/** What the benches need of the simulated X, in this process or in a child process. */
export interface SimControl {
  url: string;
  createPosts(count: number): Promise<string[]>;
  addLikes(changes: EngagementChange[]): Promise<void>;
  addRetweets(changes: EngagementChange[]): Promise<void>;
  /** Requests served so far, by endpoint. */
  calls(): Promise<Record<string, number>>;
  /** CPU seconds the simulator used so far (null when it shares this process). */
  cpuSeconds(): Promise<number | null>;
  close(): Promise<void>;
}

async function inProcessSim(): Promise<SimControl> {
  const sim = createSimulator({
    requestLogSize: 0,
    rateLimits: { posts_lookup: UNLIMITED, liking_users: UNLIMITED, retweeted_by: UNLIMITED, search_recent: UNLIMITED },
  });
  const running = await serveSimulator(sim);
  const body = (change: EngagementChange) => ({ usernames: change.usernames ?? [], anonymous: change.anonymous ?? 0 });
  return {
    url: running.url,
    async createPosts(count) {
      return Array.from({ length: count }, (_, i) => sim.state.injectPost({ author: `author${i % 500}`, text: `post ${i} #btc` }).id);
    },
    async addLikes(changes) {
      for (const change of changes) sim.state.addLikes(change.id, body(change));
    },
    async addRetweets(changes) {
      for (const change of changes) sim.state.addRetweets(change.id, body(change));
    },
    async calls() {
      const { endpoints } = sim.state.requestLog.counters();
      return Object.fromEntries(Object.entries(endpoints).map(([endpoint, counters]) => [endpoint, counters.requests]));
    },
    cpuSeconds: async () => null,
    close: () => running.close(),
  };
}

async function childProcessSim(): Promise<SimControl> {
  const child: ChildProcess = fork(path.join(__dirname, 'engagement-sim-process.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, TSX_TSCONFIG_PATH: path.join(__dirname, 'tsconfig.json') },
  });
  const reply = async <T>(message: unknown, type: string): Promise<T> => {
    const answer = new Promise<T>((resolve) => {
      const listener = (received: { type: string } & T) => {
        if (received.type !== type) return;
        child.off('message', listener);
        resolve(received);
      };
      child.on('message', listener);
    });
    if (message !== null) child.send(message as never);
    return answer;
  };
  const { url } = await reply<{ url: string }>(null, 'ready');
  return {
    url,
    async createPosts(count) {
      return (await reply<{ ids: string[] }>({ type: 'posts', count }, 'posts')).ids;
    },
    async addLikes(changes) {
      await reply({ type: 'likes', changes }, 'done');
    },
    async addRetweets(changes) {
      await reply({ type: 'retweets', changes }, 'done');
    },
    async calls() {
      return (await reply<{ calls: Record<string, number> }>({ type: 'calls' }, 'calls')).calls;
    },
    async cpuSeconds() {
      return (await reply<{ seconds: number }>({ type: 'cpu' }, 'cpu')).seconds;
    },
    async close() {
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

export interface BenchWorld {
  db: Database;
  sim: SimControl;
  redis: Redis;
  prefix: string;
  queues: Queues;
  clock: { now(): Date; advance(ms: number): void };
  /** Posts on the simulator, each detected by one account (the first `shared` ones by two). */
  postIds: string[];
  userIds: string[];
  poller(options?: Partial<PollerOptions>): EngagementPoller;
  /** An X client on the simulator with its own rate-budget prefix. */
  xClient(keyPrefix: string): XClient;
  /** Upstream calls the simulator served, by endpoint. */
  calls(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** A migrated database of its own, with the plans seeded. */
async function benchDatabase(name: string): Promise<Database> {
  await admin((client) => client.query(`CREATE DATABASE "${name}"`));
  const db = createDatabase(databaseUrlFor(name), { max: 16, applicationName: 'hashwatch-bench' });
  await migrate(db.pool);
  await seedPlans(db.pool);
  return db;
}

/** `count` Business accounts, each tracking #btc with engagement on, refreshed every `refreshSeconds`; returns their ids. */
async function seedAccounts(db: Database, count: number, refreshSeconds: number): Promise<string[]> {
  const userIds: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const { accountId } = await createAccount(db.prisma, { email: `bench${i}@example.com`, planId: 'business' });
    userIds.push(accountId);
  }
  await db.pool.query('UPDATE users SET engagement_refresh_seconds = $1, alerts_limit = 10000000', [refreshSeconds]);
  await db.pool.query(
    `INSERT INTO tracks (id, user_id, hashtag, hashtag_norm, track_engagement) SELECT 'trk_' || md5(u), u, 'btc', 'btc', true FROM unnest($1::text[]) AS u`,
    [userIds],
  );
  return userIds;
}

/** One feed item per post, detected within the hour before `now` by the accounts in turn; the first `shared` posts also by the next account. */
async function seedFeedItems(db: Database, postIds: string[], userIds: string[], shared: number, now: Date): Promise<void> {
  // ENGAGEMENT_BENCH_FEED_FILLFACTOR overrides feed_items' fillfactor (85 since migration
  // 20261125001500_feed_items_fillfactor; 100 measures without it).
  if (process.env.ENGAGEMENT_BENCH_FEED_FILLFACTOR) {
    await db.pool.query(`ALTER TABLE feed_items SET (fillfactor = ${Number(process.env.ENGAGEMENT_BENCH_FEED_FILLFACTOR)})`);
  }
  const owners = postIds.map((_, i) => userIds[i % userIds.length] as string);
  const second = postIds.slice(0, shared).map((_, i) => userIds[(i + 1) % userIds.length] as string);
  await db.pool.query(
    `INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, sources, x_post_id, author, author_name, text, url,
                             posted_at, detected_at, engagement_tracked)
     SELECT 'post_' || substr(md5(p.user_id || p.id), 1, 16), p.user_id, 'x:' || p.id, 'hashtag', 'btc', ARRAY['#btc'], p.id,
            '@bench', 'Bench', 'gm #btc', 'https://x.com/bench/status/' || p.id, $3::timestamptz,
            $3::timestamptz - random() * interval '1 hour', true
       FROM unnest($1::text[], $2::text[]) AS p(id, user_id)`,
    [[...postIds, ...postIds.slice(0, shared)], [...owners, ...second], now],
  );
}

/**
 * `posts` simulator posts with no engagement, detected (engagement on, every category) by `accounts`
 * accounts in turn within the last hour; the first `shared` posts also by a second account.
 */
export async function createWorld(options: { posts: number; accounts: number; shared?: number; refreshSeconds?: number; simProcess?: boolean }): Promise<BenchWorld> {
  const name = `hw_bench_engagement_${randomBytes(4).toString('hex')}`;
  const db = await benchDatabase(name);

  const prefix = `hwbench${randomBytes(4).toString('hex')}`;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 3 });
  const producer = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { role: 'producer' });
  const queues = createQueues({ connection: producer, prefix });
  const sim = options.simProcess ? await childProcessSim() : await inProcessSim();

  let at = Date.now();
  const clock = { now: () => new Date(at), advance: (ms: number) => void (at += ms) };

  const postIds = await sim.createPosts(options.posts);
  const userIds = await seedAccounts(db, options.accounts, options.refreshSeconds ?? 60);
  await seedFeedItems(db, postIds, userIds, options.shared ?? 0, clock.now());
  await db.pool.query('ANALYZE');

  const logger = createLogger('engagement-bench', { level: 'error' });
  const x = createXClient({ baseUrl: sim.url, bearerToken: DEFAULT_APP_TOKEN, userToken: DEFAULT_USER_TOKEN, redis, keyPrefix: prefix, logger });

  return {
    db,
    sim,
    redis,
    prefix,
    queues,
    clock,
    postIds,
    userIds,
    poller(pollerOptions = {}) {
      return createEngagementPoller({
        pool: db.pool,
        x,
        redis,
        keyPrefix: prefix,
        logger,
        now: clock.now,
        relay: () => relayOutbox(db.pool, queues),
        options: { likesSampled: true, ...pollerOptions },
      });
    },
    xClient(keyPrefix) {
      return createXClient({ baseUrl: sim.url, bearerToken: DEFAULT_APP_TOKEN, userToken: DEFAULT_USER_TOKEN, redis, keyPrefix, logger });
    },
    calls: () => sim.calls(),
    async close() {
      await sim.close();
      await queues.close();
      producer.disconnect();
      await deletePrefixKeys(redis, prefix);
      redis.disconnect();
      await db.close();
      await admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** `count` distinct indexes below `size`, from a seeded generator so every run picks the same posts. */
export function pick(count: number, size: number, seed: number): number[] {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count, size)) chosen.add(Math.floor(next() * size));
  return [...chosen];
}

/** CPU seconds this process used so far. */
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/**
 * CPU seconds (from Linux /proc) of the PostgreSQL backends serving this bench's database, by pid: take
 * one reading before and one after, and subtract with `cpuBetween` (bench-support). Only this database's
 * backends count, not PostgreSQL's background processes (the posts bench counts every postgres process).
 */
export async function postgresCpu(pool: pg.Pool): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  return cpuSecondsOf(rows.map((row) => row.pid));
}

export const sum = (values: Record<string, number>, keys?: string[]) =>
  Object.entries(values).filter(([key]) => !keys || keys.includes(key)).reduce((total, [, value]) => total + value, 0);

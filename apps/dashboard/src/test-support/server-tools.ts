/// <reference types="node" />
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The server side of the dashboard's tests: the run's database, its Redis keys and its feed items are handled with
 * the repository's own server packages (pg, ioredis, @hashwatch/db, @hashwatch/testing, @hashwatch/feed), the code
 * gateway tests use, loaded from their builds at the repository root as infra/database.mjs loads pg. The dashboard's
 * package.json names only what the browser app and its test runner import; these are tools of the test run, and
 * only the few members used here are typed.
 */
export const REPO_ROOT = `${path.resolve(import.meta.dirname, '../../../..')}/`;
const load = createRequire(`${REPO_ROOT}package.json`);

export interface PgClient {
  connect(): Promise<unknown>;
  query<Row = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  end(): Promise<void>;
}
export interface PgPool {
  query<Row = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
interface Pg {
  Client: new (options: { connectionString: string }) => PgClient;
  Pool: new (options: { connectionString: string; max?: number }) => PgPool;
}
export interface RedisConnection {
  connect(): Promise<void>;
  disconnect(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
interface IoRedis {
  Redis: new (url: string, options: { maxRetriesPerRequest: number; lazyConnect: boolean }) => RedisConnection;
}
interface Db {
  migrate(pool: PgPool): Promise<unknown>;
  seedPlans(pool: PgPool): Promise<void>;
  transaction<T>(pool: PgPool, work: (client: PgClient) => Promise<T>): Promise<T>;
}
interface Testing {
  baseDatabaseUrl(): string;
  databaseUrlFor(name: string): string;
  adminUrl(): string;
  createQueuePrefix(): string;
  deletePrefixKeys(redis: RedisConnection, prefix: string): Promise<number>;
  freePort(): Promise<number>;
  startAppProcess(options: {
    app: string;
    entry: string;
    cwd: string;
    label: string;
    env: Record<string, string>;
    port: number;
    readyPath: string;
    logDir: string;
  }): Promise<AppProcess>;
}
/** `@hashwatch/testing`'s handle on a started app, as far as these tests use it. */
export interface AppProcess {
  stop(graceMs?: number): Promise<unknown>;
}
/** `@hashwatch/feed`'s NewFeedItem, as far as these tests set it. */
export interface NewFeedItem {
  userId: string;
  text: string;
  author: string;
  authorName: string;
  xPostId: string;
  authorId: string;
  url: string;
}
interface Feed {
  insertFeedItems(client: PgClient, items: NewFeedItem[]): Promise<{ inserted: { id: string; detectedAt: Date }[] }>;
}
interface FeedTesting {
  hashtagPost(userId: string, n: number | string, extra?: Partial<NewFeedItem>): NewFeedItem;
}

export const pg = (): Pg => load('pg') as Pg;
export const ioredis = (): IoRedis => load('ioredis') as IoRedis;
export const db = (): Db => load('@hashwatch/db') as Db;
export const testing = (): Testing => load('@hashwatch/testing') as Testing;
export const feed = (): Feed => load('@hashwatch/feed') as Feed;
export const feedTesting = (): FeedTesting => load('@hashwatch/feed/testing') as FeedTesting;

/** The built entry of an app, `node apps/<app>/dist/main.js` as `npm start -w` runs it. */
export const entryPoint = (app: 'gateway' | 'admin'): string => `${REPO_ROOT}apps/${app}/dist/main.js`;

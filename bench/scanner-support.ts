// Shared set-up of the scanner benches (bench/scanner-*.ts): a database and a Redis prefix of their own, an
// in-process X simulator, seeded accounts and tracks, the machine line. Everything it creates is removed.
import { randomBytes } from 'node:crypto';
import { createDatabase, migrate, newId, seedPlans, transaction, type Database } from '@hashwatch/db';
import { createLogger, type Logger } from '@hashwatch/logger';
import { createQueues, createRedisConnection, type Queues, type RedisClient } from '@hashwatch/queues';
import { baseDatabaseUrl, databaseUrlFor, deletePrefixKeys } from '@hashwatch/testing';
import { createXClient, type XClient } from '@hashwatch/x-api';
import { createSimulator, serveSimulator, DEFAULT_APP_TOKEN, type RunningSimulator, type Simulator, type SimulatorOptions } from '@hashwatch/x-simulator';
import { admin, machineDescription } from './bench-support';

export { percentile } from './bench-support';

export const log = (line: string) => process.stdout.write(`${line}\n`);

export function machineLine(): string {
  return `machine: ${machineDescription()}`;
}

export interface BenchEnvironment {
  db: Database;
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  producer: RedisClient;
  queues: Queues;
  sim: Simulator;
  simUrl: string;
  logger: Logger;
  xClient(): XClient;
  close(): Promise<void>;
}

/** A migrated database, a Redis prefix and a simulator with no practical rate limit, all for this run only. */
export async function benchEnvironment(name: string, simOptions: SimulatorOptions = {}): Promise<BenchEnvironment> {
  const database = `hw_bench_${name}_${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE "${database}"`));
  const databaseUrl = databaseUrlFor(database);
  const db = createDatabase(databaseUrl, { max: 20, applicationName: `bench-${name}` });
  await migrate(db.pool);
  await seedPlans(db.pool);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `hwbench${randomBytes(4).toString('hex')}`;
  const producer = createRedisConnection(redisUrl, { role: 'producer' });
  const queues = createQueues({ connection: producer, prefix });
  const unlimited = { app: 10_000_000, user: 10_000_000 };
  const sim = createSimulator({
    requestLogSize: 1_000_000,
    rateLimits: { search_recent: unlimited, user_posts: unlimited, users_by_usernames: unlimited },
    ...simOptions,
  });
  const running: RunningSimulator = await serveSimulator(sim);
  const logger = createLogger(`bench-${name}`, { level: process.env.LOG_LEVEL ?? 'error' });
  log(`database: ${new URL(baseDatabaseUrl()).host}, PostgreSQL ${(await db.pool.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version}`);
  return {
    db,
    databaseUrl,
    redisUrl,
    prefix,
    producer,
    queues,
    sim,
    simUrl: running.url,
    logger,
    xClient: () => createXClient({ baseUrl: running.url, bearerToken: DEFAULT_APP_TOKEN, redis: producer, keyPrefix: prefix, logger }),
    async close() {
      await queues.close();
      await deletePrefixKeys(producer, prefix);
      producer.disconnect();
      await running.close();
      await db.close();
      await admin((client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
    },
  };
}

/**
 * `count` distinct lower-case tags with lengths 3-14, short ones more frequent (like real hashtags and
 * tickers): about 45% have 6 letters or fewer and so also have a cashtag form.
 */
export function tagVocabulary(count: number, random: () => number): string[] {
  const lengths = [3, 3, 4, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 10, 11, 12, 14];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const tags = new Set<string>();
  while (tags.size < count) {
    const length = lengths[Math.floor(random() * lengths.length)] as number;
    let tag = '';
    for (let i = 0; i < length; i += 1) tag += letters[Math.floor(random() * letters.length)];
    tags.add(tag);
  }
  return [...tags];
}

/** `count` served accounts on the Business plan snapshot, with optional overrides; returns their ids. */
export async function seedAccounts(db: Database, count: number, options: { scanIntervalSeconds?: number; alertsLimit?: number } = {}): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO users (id, email, plan_id, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit,
                        scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute, subscription_status,
                        current_period_start, current_period_end)
     SELECT 'usr_bench' || g, 'bench' || g || '@example.com', p.id, p.hashtags_limit, p.accounts_limit, p.engagement_limit,
            p.webhooks_limit, COALESCE($2, p.alerts_limit), COALESCE($3, p.scan_interval_seconds), p.engagement_refresh_seconds,
            p.rate_limit_per_minute, 'active', now(), now() + interval '30 days'
       FROM generate_series(1, $1::int) g, plans p WHERE p.id = 'business'
     RETURNING id`,
    [count, options.alertsLimit ?? null, options.scanIntervalSeconds ?? null],
  );
  return rows.map((row) => row.id);
}

/** Hashtag tracks, created `ageMs` ago (default one minute). */
export async function seedTracks(db: Database, tracks: { userId: string; hashtag: string }[], ageMs = 60_000): Promise<void> {
  await db.pool.query(
    `INSERT INTO tracks (id, user_id, hashtag, hashtag_norm, created_at)
     SELECT 'trk_b' || i, t.user_id, t.hashtag, lower(t.hashtag), now() - make_interval(secs => $3::float8 / 1000)
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(user_id, hashtag, i)`,
    [tracks.map((t) => t.userId), tracks.map((t) => t.hashtag), ageMs],
  );
}

export async function seedAccountTracks(db: Database, follows: { userId: string; username: string }[], ageMs = 60_000): Promise<void> {
  await db.pool.query(
    `INSERT INTO account_tracks (id, user_id, username, username_norm, created_at)
     SELECT 'acc_b' || i, t.user_id, t.username, lower(t.username), now() - make_interval(secs => $3::float8 / 1000)
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(user_id, username, i)`,
    [follows.map((t) => t.userId), follows.map((t) => t.username), ageMs],
  );
}


// The feed item columns a raw insert writes, from rows the scanner stored, with their types: the work any feed
// writer must do. `item_head` (the item's JSON, written by feed_items' trigger) is copied as it was stored.
const COPY_COLUMNS: readonly (readonly [string, string])[] = [
  ['user_id', 'text'], ['dedupe_key', 'text'], ['type', 'feed_item_type'], ['hashtag', 'text'], ['account', 'text'], ['sources', 'text[]'],
  ['x_post_id', 'text'], ['author_id', 'text'], ['author', 'text'], ['author_name', 'text'], ['text', 'text'], ['url', 'text'],
  ['posted_at', 'timestamptz'], ['engagement_tracked', 'boolean'], ['track_likes', 'boolean'], ['track_reposts', 'boolean'],
  ['track_comments', 'boolean'], ['item_head', 'text'],
];

/**
 * The baseline of a run: the feed items it stored, inserted again with a raw `INSERT … SELECT FROM unnest(…)` into
 * a copy of `feed_items` (its columns, defaults and indexes; no triggers), `batchSize` rows per transaction, with new
 * random ids. Resolves with the rows inserted and the seconds it took.
 */
export async function rawInsertIntoCopy(db: Database, batchSize: number): Promise<{ rows: number; seconds: number }> {
  const names = COPY_COLUMNS.map(([name]) => name);
  await db.pool.query('CREATE TABLE feed_items_copy (LIKE feed_items INCLUDING DEFAULTS INCLUDING INDEXES INCLUDING CONSTRAINTS)');
  const { rows } = await db.pool.query<Record<string, unknown>>(`SELECT ${names.join(', ')} FROM feed_items ORDER BY detected_at`);
  // Arrays of arrays travel as JSON text: unnest would flatten them.
  const unnested = COPY_COLUMNS.map(([name, type]) => (type === 'text[]' ? `ARRAY(SELECT jsonb_array_elements_text(r.${name}::jsonb))` : `r.${name}::${type}`)).join(', ');
  const params = COPY_COLUMNS.map(([, type], i) => `$${i + 1}::${type === 'text[]' || type === 'feed_item_type' ? 'text' : type}[]`).join(', ');
  const sql = `INSERT INTO feed_items_copy (${names.join(', ')}, id, detected_at)
    SELECT ${unnested}, r.id, now() FROM unnest(${params}, $${names.length + 1}::text[]) AS r(${names.join(', ')}, id)`;
  try {
    const started = performance.now();
    for (let from = 0; from < rows.length; from += batchSize) {
      const batch = rows.slice(from, from + batchSize);
      const values = COPY_COLUMNS.map(([name, type]) => batch.map((row) => (type === 'text[]' ? JSON.stringify(row[name]) : row[name])));
      await transaction(db.pool, (client) => client.query(sql, [...values, batch.map(() => newId('post'))]));
    }
    return { rows: rows.length, seconds: (performance.now() - started) / 1000 };
  } finally {
    await db.pool.query('DROP TABLE feed_items_copy');
  }
}

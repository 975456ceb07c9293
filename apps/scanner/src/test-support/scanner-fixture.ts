import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { createAccount } from '@hashwatch/accounts';
import { createLogger, type Logger } from '@hashwatch/logger';
import type { SourceFilters } from '@hashwatch/post-filters';
import type { Cluster, Redis } from 'ioredis';
import { routeAlertItems, type Queues } from '@hashwatch/queues';
import { useTestQueues } from '@hashwatch/queues/testing';
import { useTestEnvironment, type TestEnvironment } from '@hashwatch/testing';
import { createXClient, type XClient, type XClientOptions } from '@hashwatch/x-api';
// The simulator plays X; tests drive it in-process. Test code only: the scanner itself never imports it.
import type { Simulator, SimulatorOptions } from '@hashwatch/x-simulator';
import { APP_TOKEN, useTestSimulator } from '@hashwatch/x-simulator/testing';
import { createScanner, type Scanner, type ScannerOptions } from '../scanner';

export interface StoredItem {
  id: string;
  user_id: string;
  x_post_id: string;
  type: string;
  hashtag: string | null;
  account: string | null;
  sources: string[];
  author: string;
  author_name: string;
  text: string;
  url: string;
  posted_at: Date;
  detected_at: Date;
  engagement_tracked: boolean;
  track_likes: boolean;
  matched_by: 'author' | 'mention' | null;
}

export interface TrackOptions {
  lang?: string | null;
  excludeRetweets?: boolean;
  trackEngagement?: boolean;
  trackLikes?: boolean;
  /** Default: one second ago, so posts injected right after are clearly newer. */
  createdAt?: Date;
  /** Stored as the gateway stores them (@hashwatch/post-filters normalizeFilters). */
  filters?: SourceFilters | null;
}

export interface AccountTrackOptions {
  excludeReplies?: boolean;
  trackEngagement?: boolean;
  createdAt?: Date;
  filters?: SourceFilters | null;
  includeMentions?: boolean;
}

export interface ScannerFixture {
  readonly env: TestEnvironment;
  readonly sim: Simulator;
  readonly simUrl: string;
  readonly queues: Queues;
  readonly producer: Redis | Cluster;
  readonly logger: Logger;
  pool(): pg.Pool;
  /** A client on the simulator and this file's prefix: each call is another replica's client. */
  xClient(overrides?: Partial<XClientOptions>): XClient;
  /** A scanner replica (its own X client) on this file's database, prefix and simulator. */
  scanner(overrides?: Partial<ScannerOptions>): Scanner;
  /** A served account (active subscription) on `plan`, with optional snapshot overrides. */
  account(options?: { plan?: 'starter' | 'pro' | 'business'; scanIntervalSeconds?: number; alertsLimit?: number }): Promise<string>;
  track(userId: string, hashtag: string, options?: TrackOptions): Promise<string>;
  accountTrack(userId: string, username: string, options?: AccountTrackOptions): Promise<string>;
  /** Every source due now, so the next tick scans it without waiting for its cadence. */
  makeDue(): Promise<void>;
  items(userId: string): Promise<StoredItem[]>;
  usage(userId: string): Promise<{ alerts_used: number; upstream_posts_read: number } | null>;
  searchRequests(): number;
  /**
   * Feed item ids carried by the jobs of the alert-routing queue (waiting, delayed, active, completed or failed),
   * sorted, once per job carrying each.
   */
  alertedItemIds(): Promise<string[]>;
  /** Every feed item carried by an alert-routing job, in any state, with the id of the job carrying it. */
  alertJobs(): Promise<{ id: string; feedItemId: string; userId: string }[]>;
  /** Job ids BullMQ reported as `duplicated` on the alert-routing queue: each an add of a job it already held. */
  duplicatedAlertJobIds(): Promise<string[]>;
}

// Ids and emails unique within the test file's database.
let counter = 0;

async function createTestAccount(env: TestEnvironment, options: Parameters<ScannerFixture['account']>[0] = {}): Promise<string> {
  counter += 1;
  const email = `scan${counter}-${randomBytes(3).toString('hex')}@example.com`;
  const { accountId } = await createAccount(env.database.db.prisma, { email, planId: options.plan ?? 'business' });
  if (options.scanIntervalSeconds !== undefined || options.alertsLimit !== undefined) {
    await env.database.db.pool.query(
      'UPDATE users SET scan_interval_seconds = COALESCE($2, scan_interval_seconds), alerts_limit = COALESCE($3, alerts_limit) WHERE id = $1',
      [accountId, options.scanIntervalSeconds ?? null, options.alertsLimit ?? null],
    );
  }
  return accountId;
}

async function insertTrack(pool: pg.Pool, userId: string, hashtag: string, options: TrackOptions): Promise<string> {
  counter += 1;
  const id = `trk_t${counter}${randomBytes(4).toString('hex')}`;
  await pool.query(
    `INSERT INTO tracks (id, user_id, hashtag, hashtag_norm, lang, exclude_retweets, track_engagement, track_likes, created_at, filters)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [id, userId, hashtag, hashtag.toLowerCase(), options.lang ?? null, options.excludeRetweets ?? true, options.trackEngagement ?? false,
      options.trackLikes ?? true, options.createdAt ?? new Date(Date.now() - 1000), options.filters ?? null],
  );
  return id;
}

async function insertAccountTrack(pool: pg.Pool, userId: string, username: string, options: AccountTrackOptions): Promise<string> {
  counter += 1;
  const id = `acc_a${counter}${randomBytes(4).toString('hex')}`;
  await pool.query(
    `INSERT INTO account_tracks (id, user_id, username, username_norm, exclude_replies, track_engagement, created_at, filters, include_mentions)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, userId, username, username.toLowerCase(), options.excludeReplies ?? true, options.trackEngagement ?? false,
      options.createdAt ?? new Date(Date.now() - 1000), options.filters ?? null, options.includeMentions ?? false],
  );
  return id;
}

async function storedItems(pool: pg.Pool, userId: string): Promise<StoredItem[]> {
  const { rows } = await pool.query<StoredItem>(
    `SELECT id, user_id, x_post_id, type, hashtag, account, sources, author, author_name, text, url, posted_at, detected_at,
            engagement_tracked, track_likes, matched_by
       FROM feed_items WHERE user_id = $1 ORDER BY x_post_id::numeric`,
    [userId],
  );
  return rows;
}

async function usageOf(pool: pg.Pool, userId: string): Promise<{ alerts_used: number; upstream_posts_read: number } | null> {
  const { rows } = await pool.query<{ alerts_used: number; upstream_posts_read: string }>(
    `SELECT p.alerts_used, p.upstream_posts_read::text FROM usage_periods p JOIN users u ON u.id = p.user_id AND p.period_start = u.current_period_start
      WHERE p.user_id = $1`,
    [userId],
  );
  const row = rows[0];
  return row ? { alerts_used: row.alerts_used, upstream_posts_read: Number(row.upstream_posts_read) } : null;
}

/** Job ids BullMQ reported as `duplicated` on the queue's event stream: each an add of a job it already held. */
async function duplicatedJobIds(queue: Queues['byName']['alert-routing'], redis: Redis | Cluster): Promise<string[]> {
  const events = await redis.xrange(queue.keys.events as string, '-', '+');
  const ids: string[] = [];
  for (const [, fields] of events) {
    const event = new Map<string, string>();
    for (let i = 0; i + 1 < fields.length; i += 2) event.set(fields[i] as string, fields[i + 1] as string);
    if (event.get('event') === 'duplicated') ids.push(event.get('jobId') ?? '');
  }
  return ids;
}

/** Hooks for a scanner test file: its own database, Redis prefix and X simulator (rate window 2 s). */
export function useScannerFixture(simOptions: SimulatorOptions = {}): ScannerFixture {
  const env = useTestEnvironment();
  const logger = createLogger('scanner-test', { level: process.env.TEST_LOG_LEVEL ?? 'error' });
  const simulator = useTestSimulator({ rateLimitWindowSeconds: 2, ...simOptions });
  const testQueues = useTestQueues(env);
  const pool = () => env.database.db.pool;

  const fixture: ScannerFixture = {
    env,
    logger,
    get sim() {
      return simulator.sim;
    },
    get simUrl() {
      return simulator.url;
    },
    get queues() {
      return testQueues.queues;
    },
    get producer() {
      return testQueues.producer;
    },
    pool,
    xClient(overrides = {}) {
      return createXClient({ baseUrl: simulator.url, bearerToken: APP_TOKEN, redis: fixture.producer, keyPrefix: env.queuePrefix, logger, ...overrides });
    },
    scanner(overrides = {}) {
      return createScanner({
        pool: pool(),
        x: fixture.xClient(),
        queues: fixture.queues,
        logger,
        maxQueryLength: 512,
        retryDelaysMs: [20, 50],
        ...overrides,
      });
    },
    account: (options = {}) => createTestAccount(env, options),
    track: (userId, hashtag, options = {}) => insertTrack(pool(), userId, hashtag, options),
    accountTrack: (userId, username, options = {}) => insertAccountTrack(pool(), userId, username, options),
    async makeDue() {
      await pool().query('UPDATE source_cursors SET next_scan_at = now() - interval \'1 second\'');
    },
    items: (userId) => storedItems(pool(), userId),
    usage: (userId) => usageOf(pool(), userId),
    searchRequests() {
      return simulator.requests('search_recent');
    },
    async alertedItemIds() {
      return (await fixture.alertJobs()).map((job) => job.feedItemId).sort();
    },
    async alertJobs() {
      const jobs = await fixture.queues.byName['alert-routing'].getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
      return jobs.flatMap((job) => routeAlertItems(job).map((item) => ({ id: job.id as string, ...item })));
    },
    duplicatedAlertJobIds: () => duplicatedJobIds(fixture.queues.byName['alert-routing'], fixture.producer),
  };
  return fixture;
}


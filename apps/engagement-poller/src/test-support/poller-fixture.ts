import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { createAccount } from '@hashwatch/accounts';
import { transaction } from '@hashwatch/db';
import { insertFeedItems } from '@hashwatch/feed';
import { createLogger } from '@hashwatch/logger';
import { relayOutbox } from '@hashwatch/outbox';
import type { Cluster, Redis } from 'ioredis';
import { routeAlertItems, type Queues } from '@hashwatch/queues';
import { useTestQueues } from '@hashwatch/queues/testing';
import { useTestEnvironment, type TestEnvironment } from '@hashwatch/testing';
import { createXClient, type XClient } from '@hashwatch/x-api';
// The simulator plays X; tests drive it in-process. Test code only: the poller itself never imports it.
import type { Simulator, SimulatorOptions } from '@hashwatch/x-simulator';
import { APP_TOKEN, USER_TOKEN, useTestSimulator } from '@hashwatch/x-simulator/testing';
import { createEngagementPoller, type EngagementPoller, type PollerOptions } from '../engagement-poller';
import type { SampleAllowance } from '../samples/sample-budget';
import type { SampleKind } from '../samples/sample-kinds';

/** A budget no test reaches, for tests about something else than the budget. */
export const OPEN_ALLOWANCES: Record<SampleKind, SampleAllowance> = {
  like: { perWindow: 100_000, windowSeconds: 900, burst: 10_000 },
  retweet: { perWindow: 100_000, windowSeconds: 900, burst: 10_000 },
  reply: { perWindow: 100_000, windowSeconds: 900, burst: 10_000 },
};

/** How a test's post was detected: through which source, with which flags, when. */
export interface DetectOptions {
  hashtag?: string;
  account?: string;
  sources?: string[];
  flags?: Flags;
  detectedAt?: Date;
}

export interface Flags {
  trackEngagement?: boolean;
  trackLikes?: boolean;
  trackReposts?: boolean;
  trackComments?: boolean;
}

/** A table of sources, as the gateway writes them. */
interface SourceTable {
  table: 'tracks' | 'account_tracks';
  nameColumn: 'hashtag' | 'username';
  idPrefix: 'trk' | 'acc';
}
const TRACKS: SourceTable = { table: 'tracks', nameColumn: 'hashtag', idPrefix: 'trk' };
const ACCOUNT_TRACKS: SourceTable = { table: 'account_tracks', nameColumn: 'username', idPrefix: 'acc' };

async function insertSource(pool: pg.Pool, source: SourceTable, userId: string, name: string, flags: Flags): Promise<string> {
  const id = `${source.idPrefix}_${randomBytes(8).toString('hex')}`;
  await pool.query(
    `INSERT INTO ${source.table} (id, user_id, ${source.nameColumn}, ${source.nameColumn}_norm, track_engagement, track_likes, track_reposts, track_comments)
     VALUES ($1, $2, $3, lower($3), $4, $5, $6, $7)`,
    [id, userId, name, flags.trackEngagement ?? true, flags.trackLikes ?? true, flags.trackReposts ?? true, flags.trackComments ?? true],
  );
  return id;
}

/** Changes the flags given, as a PATCH does; the others keep their value. */
async function setSourceFlags(pool: pg.Pool, source: SourceTable, id: string, flags: Flags): Promise<void> {
  await pool.query(
    `UPDATE ${source.table} SET track_engagement = COALESCE($2, track_engagement), track_likes = COALESCE($3, track_likes),
                          track_reposts = COALESCE($4, track_reposts), track_comments = COALESCE($5, track_comments)
      WHERE id = $1`,
    [id, flags.trackEngagement ?? null, flags.trackLikes ?? null, flags.trackReposts ?? null, flags.trackComments ?? null],
  );
}

export interface FeedItemRow {
  id: string;
  user_id: string;
  dedupe_key: string;
  type: string;
  x_post_id: string;
  author: string;
  author_name: string;
  author_id: string | null;
  text: string;
  url: string;
  hashtag: string | null;
  account: string | null;
  sources: string[];
  posted_at: Date | null;
  detected_at: Date;
  parent_id: string | null;
  kind: string | null;
  engagement_tracked: boolean;
  track_likes: boolean;
  track_reposts: boolean;
  track_comments: boolean;
  retweet_count: number;
  like_count: number;
  reply_count: number;
  retweeters: string[];
  likers: string[];
  repliers: string[];
  engagement_updated_at: Date | null;
}

export interface PollerFixture {
  readonly env: TestEnvironment;
  readonly sim: Simulator;
  readonly simUrl: string;
  readonly queues: Queues;
  /** The poller's clock: starts at the real time (detected_at comes from the database's clock). */
  readonly clock: { now(): Date; set(at: Date): void; advance(ms: number): void };
  xClient(options?: { userToken?: boolean }): XClient;
  /** A poller on this file's database, Redis prefix and simulator; each call is another "replica". */
  poller(options?: Partial<PollerOptions> & { userToken?: boolean; redis?: Redis | Cluster }): EngagementPoller;
  account(options?: { refreshSeconds?: number; plan?: 'starter' | 'pro' | 'business' }): Promise<string>;
  /** A hashtag track (engagement on unless said otherwise). */
  track(userId: string, hashtag: string, flags?: Flags): Promise<string>;
  setTrackFlags(trackId: string, flags: Flags): Promise<void>;
  /** An account track (engagement on unless said otherwise). */
  accountTrack(userId: string, username: string, flags?: Flags): Promise<string>;
  setAccountTrackFlags(accountTrackId: string, flags: Flags): Promise<void>;
  /** A new post on the simulator. */
  post(author?: string, text?: string): { id: string; author: string };
  /**
   * Stores the account's detection of `post` as the scanner would, flags copied from the source. By default
   * through a hashtag (creating the track when missing); with `account`, as an account post (the test makes
   * the account track). `sources` lists every source that matched, as the scanner writes them.
   */
  detect(
    userId: string,
    post: { id: string; author: string },
    options?: DetectOptions,
  ): Promise<string>;
  item(id: string): Promise<FeedItemRow>;
  /** Engagement items of one account, oldest first. */
  engagementItems(userId: string, parentId?: string): Promise<FeedItemRow[]>;
  /** Requests the simulator received on one endpoint. */
  requests(endpoint: 'posts_lookup' | 'liking_users' | 'retweeted_by' | 'search_recent'): number;
  /** Feed item ids carried by the alert-routing jobs in BullMQ, sorted, once per job carrying each. */
  alertedItemIds(): Promise<string[]>;
}

/** Handles `prefix0001`… for `count` simulated accounts. */
export function handles(prefix: string, count: number, from = 1): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${String(from + i).padStart(4, '0')}`);
}

/** Stores a post as the scanner would have detected it for `userId` (and its hashtag track), answering the item id. */
async function detectPost(pool: pg.Pool, userId: string, post: { id: string; author: string }, options: DetectOptions): Promise<string> {
    const account = options.account ?? null;
    const hashtag = account === null ? (options.hashtag ?? 'btc') : null;
    const flags = { trackEngagement: true, trackLikes: true, trackReposts: true, trackComments: true, ...options.flags };
    // The hashtag track the scanner found the post through, unless the test made it already.
    if (hashtag !== null) {
      await pool.query(
        `INSERT INTO tracks (id, user_id, hashtag, hashtag_norm, track_engagement, track_likes, track_reposts, track_comments)
         VALUES ($1, $2, $3, lower($3), $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [`trk_${randomBytes(8).toString('hex')}`, userId, hashtag, flags.trackEngagement, flags.trackLikes, flags.trackReposts, flags.trackComments],
      );
    }
    const { inserted } = await transaction(pool, (client) =>
      insertFeedItems(client, [
        {
          userId,
          dedupeKey: `x:${post.id}`,
          type: account === null ? 'hashtag' : 'account',
          hashtag,
          account,
          sources: options.sources ?? [account === null ? `#${hashtag}` : `@${account}`],
          xPostId: post.id,
          authorId: null,
          author: `@${post.author}`,
          authorName: post.author,
          text: `a post about ${hashtag === null ? `@${account}` : `#${hashtag}`}`,
          url: `https://x.com/${post.author}/status/${post.id}`,
          postedAt: new Date(),
          engagementTracked: flags.trackEngagement,
          trackLikes: flags.trackLikes,
          trackReposts: flags.trackReposts,
          trackComments: flags.trackComments,
        },
      ]),
    );
    const id = inserted[0]?.id;
    if (!id) throw new Error(`post ${post.id} was already detected for ${userId}`);
    if (options.detectedAt) await pool.query('UPDATE feed_items SET detected_at = $2 WHERE id = $1', [id, options.detectedAt]);
    return id;
  }

async function readItem(pool: pg.Pool, id: string): Promise<FeedItemRow> {
  const { rows } = await pool.query<FeedItemRow>('SELECT * FROM feed_items WHERE id = $1', [id]);
  if (!rows[0]) throw new Error(`no feed item ${id}`);
  return rows[0];
}

/** The account's engagement items, of one parent when given, in detection order. */
async function engagementItemsOf(pool: pg.Pool, userId: string, parentId?: string): Promise<FeedItemRow[]> {
  const { rows } = await pool.query<FeedItemRow>(
    `SELECT * FROM feed_items WHERE user_id = $1 AND type = 'engagement' AND ($2::text IS NULL OR parent_id = $2) ORDER BY detected_at, dedupe_key`,
    [userId, parentId ?? null],
  );
  return rows;
}

/**
 * Registers hooks giving the test file a database, a Redis prefix, an X simulator on a free port (with a
 * 2-second rate window, so a 429 blocks an endpoint for seconds, not 15 minutes) and BullMQ queues.
 */
export function usePollerFixture(simOptions: SimulatorOptions = {}): PollerFixture {
  const env = useTestEnvironment();
  const logger = createLogger('engagement-test', { level: 'error' });
  const simulator = useTestSimulator({ rateLimitWindowSeconds: 2, ...simOptions });
  const testQueues = useTestQueues(env);
  let at = new Date();
  let counter = 0;

  const pool = () => env.database.db.pool;

  const fixture: PollerFixture = {
    env,
    get sim() {
      return simulator.sim;
    },
    get simUrl() {
      return simulator.url;
    },
    get queues() {
      return testQueues.queues;
    },
    clock: {
      now: () => new Date(at),
      set(value) {
        at = new Date(value);
      },
      advance(ms) {
        at = new Date(at.getTime() + ms);
      },
    },
    xClient(options = {}) {
      return createXClient({
        baseUrl: simulator.url,
        bearerToken: APP_TOKEN,
        ...(options.userToken === false ? {} : { userToken: USER_TOKEN }),
        redis: env.redis,
        keyPrefix: env.queuePrefix,
        logger,
      });
    },
    poller(options = {}) {
      const { userToken, redis, ...rest } = options;
      return createEngagementPoller({
        pool: pool(),
        x: fixture.xClient({ userToken: userToken !== false }),
        redis: redis ?? env.redis,
        keyPrefix: env.queuePrefix,
        logger,
        now: () => fixture.clock.now(),
        relay: () => relayOutbox(pool(), fixture.queues),
        options: { likesSampled: userToken !== false, allowances: OPEN_ALLOWANCES, ...rest },
      });
    },
    async account(options = {}) {
      counter += 1;
      const { accountId } = await createAccount(env.database.db.prisma, { email: `u${counter}-${randomBytes(3).toString('hex')}@example.com`, planId: options.plan ?? 'business' });
      if (options.refreshSeconds !== undefined) {
        await pool().query('UPDATE users SET engagement_refresh_seconds = $2 WHERE id = $1', [accountId, options.refreshSeconds]);
      }
      return accountId;
    },
    track: (userId, hashtag, flags = {}) => insertSource(pool(), TRACKS, userId, hashtag, flags),
    setTrackFlags: (trackId, flags) => setSourceFlags(pool(), TRACKS, trackId, flags),
    accountTrack: (userId, username, flags = {}) => insertSource(pool(), ACCOUNT_TRACKS, userId, username, flags),
    setAccountTrackFlags: (accountTrackId, flags) => setSourceFlags(pool(), ACCOUNT_TRACKS, accountTrackId, flags),
    post(author = 'alice', text = 'gm #btc') {
      const post = fixture.sim.state.injectPost({ author, text });
      return { id: post.id, author };
    },
    detect: (userId, post, options = {}) => detectPost(pool(), userId, post, options),
    item: (id) => readItem(pool(), id),
    engagementItems: (userId, parentId) => engagementItemsOf(pool(), userId, parentId),
    requests: (endpoint) => simulator.requests(endpoint),
    async alertedItemIds() {
      const jobs = await fixture.queues.byName['alert-routing'].getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
      return jobs.flatMap((job) => routeAlertItems(job).map((item) => item.feedItemId)).sort();
    },
  };
  return fixture;
}

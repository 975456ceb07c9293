import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { createAccount } from '@hashwatch/accounts';
import { createSender, generateSigningSecret, type Sender } from '@hashwatch/channels';
import { newId, transaction } from '@hashwatch/db';
import { insertFeedItems, type NewFeedItem } from '@hashwatch/feed';
import { hashtagPost } from '@hashwatch/feed/testing';
import { createLogger, type Logger } from '@hashwatch/logger';
import { relayOutboxUntilEmpty, writeOutbox } from '@hashwatch/outbox';
import { createQueues, createRedisConnection, routeAlertsJobs, untilReady, type Queues, type RedisClient, type RedisTarget } from '@hashwatch/queues';
import { createCipher, type Cipher } from '@hashwatch/secrets';
import type { Receiver, TestDatabase } from '@hashwatch/testing';
import type { NotifierOptions } from '../notifier-options';
import { startNotifier, type RunningNotifier } from '../start-notifier';
import { startJsonReceiver } from './receiver';

export const SECRETS_KEY = randomBytes(32).toString('base64');
export const cipher: Cipher = createCipher(SECRETS_KEY);

/** Short cadences so retries, leases and pacing play out in seconds. */
export const FAST: Partial<NotifierOptions> = {
  sendTimeoutMs: 1_000,
  leaseMs: 1_000,
  backoffBaseMs: 100,
  maxBackoffMs: 1_000,
  failurePauseMs: 100,
  sweepIntervalMs: 200,
  relayIntervalMs: 200,
};

export function quietLogger(): Logger {
  return createLogger('notifier-test', { level: process.env.TEST_LOG_LEVEL ?? 'error' });
}

export async function newAccount(db: TestDatabase): Promise<string> {
  const { accountId } = await createAccount(db.db.prisma, { email: `${newId('usr')}@example.com`, planId: 'business' });
  return accountId;
}

/**
 * A new account with a json webhook channel to a fresh receiver that verifies the channel's signatures. The
 * receiver joins `receivers`, which the test file closes afterwards.
 */
export async function jsonChannel(db: TestDatabase, receivers: Receiver[]): Promise<{ receiver: Receiver; user: string; channelId: string }> {
  let secret = '';
  const receiver = await startJsonReceiver(() => secret);
  receivers.push(receiver);
  const user = await newAccount(db);
  const channel = await addWebhook(db.db.pool, user, { url: `${receiver.origin}/hook` });
  secret = channel.secret;
  return { receiver, user, channelId: channel.id };
}

export interface WebhookChannelInput {
  url: string;
  format?: 'auto' | 'discord' | 'slack' | 'json';
  hashtags?: string[];
  accounts?: string[];
  sourceFilter?: 'all' | 'hashtags' | 'accounts';
  engagementAlerts?: boolean;
  template?: string;
  enabled?: boolean;
  /** A json webhook's own ceiling (CONTRACT 9 `max_per_second`). */
  maxPerSecond?: number;
}

/** A webhook channel stored the way PUT /notifications stores it (signing secret sealed). */
export async function addWebhook(pool: pg.Pool, userId: string, input: WebhookChannelInput): Promise<{ id: string; secret: string }> {
  const id = newId('wh');
  const secret = generateSigningSecret();
  await pool.query(
    `INSERT INTO notification_channels (id, user_id, kind, url, format, hashtags, accounts, source_filter, engagement_alerts, template, enabled,
                                        signing_secret_enc, max_per_second)
     VALUES ($1, $2, 'webhook', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      id,
      userId,
      input.url,
      input.format ?? 'json',
      input.hashtags ?? [],
      input.accounts ?? [],
      input.sourceFilter ?? 'all',
      input.engagementAlerts ?? false,
      input.template ?? '',
      input.enabled ?? true,
      cipher.encrypt(secret),
      input.maxPerSecond ?? null,
    ],
  );
  return { id, secret };
}

export async function addBot(pool: pg.Pool, userId: string, input: { token: string; chatId: string; engagementAlerts?: boolean }): Promise<string> {
  const id = newId('bot');
  await pool.query(
    `INSERT INTO notification_channels (id, user_id, kind, chat_id, engagement_alerts, bot_token_enc, token_hint)
     VALUES ($1, $2, 'bot', $3, $4, $5, $6)`,
    [id, userId, input.chatId, input.engagementAlerts ?? false, cipher.encrypt(input.token), input.token.slice(-4)],
  );
  return id;
}

let counter = 0;

/** A hashtag post by @alice for `userId`, published now; `extra` overrides any field. */
export function post(userId: string, extra: Partial<NewFeedItem> = {}): NewFeedItem {
  counter += 1;
  const n = `${Date.now()}${counter}`;
  return hashtagPost(userId, n, { author: 'alice', authorName: 'Alice', url: `https://x.com/alice/status/${n}`, postedAt: new Date(), ...extra });
}

/**
 * Stores feed items and their route-alerts outbox rows in one transaction, as a feed writer does (one row per
 * job of up to 500 items). Returns the stored items; the notifier's relay moves the jobs (or
 * `relayOutboxUntilEmpty` does, in tests that call it).
 */
export async function storeFeedItems(pool: pg.Pool, items: NewFeedItem[]): Promise<{ id: string; userId: string }[]> {
  return transaction(pool, async (client) => {
    const { inserted } = await insertFeedItems(client, items);
    await writeOutbox(client, routeAlertsJobs(inserted.map((item) => ({ feedItemId: item.id, userId: item.userId }))));
    return inserted.map((item) => ({ id: item.id, userId: item.userId }));
  });
}

/** {@link storeFeedItems}, then the backstop relay right after the commit. */
export async function storeAndRelay(pool: pg.Pool, queues: Queues, items: NewFeedItem[]): Promise<{ id: string; userId: string }[]> {
  const stored = await storeFeedItems(pool, items);
  await relayOutboxUntilEmpty(pool, queues);
  return stored;
}

export interface NotifierHandle {
  notifier: RunningNotifier;
  queues: Queues;
  redis: RedisClient;
  stop(): Promise<void>;
}

/** A notifier replica in this process against the test database and prefix, with its own connections. */
export async function startTestNotifier(
  pool: pg.Pool,
  options: {
    /** A URL or a cluster's nodes (`env.redisTarget`). */
    redisTarget: RedisTarget;
    prefix: string;
    notifier?: Partial<NotifierOptions>;
    sender?: Sender;
    /** The default sender's first-byte deadline (default: the send's whole deadline). */
    firstByteTimeoutMs?: number;
    logger?: Logger;
    telegramBaseUrl?: string;
  },
): Promise<NotifierHandle> {
  const logger = options.logger ?? quietLogger();
  const workerConnection = createRedisConnection(options.redisTarget, { role: 'worker' });
  const redis = createRedisConnection(options.redisTarget, { role: 'producer' });
  await untilReady(redis);
  const queues = createQueues({ connection: redis, prefix: options.prefix });
  const notifierOptions = { ...FAST, ...options.notifier };
  const sender =
    options.sender ??
    createSender({
      allowPrivateNetworks: true,
      timeoutMs: notifierOptions.sendTimeoutMs ?? 1_000,
      ...(options.firstByteTimeoutMs !== undefined ? { firstByteTimeoutMs: options.firstByteTimeoutMs } : {}),
    });
  const notifier = await startNotifier({
    pool,
    workerConnection,
    redis,
    queues,
    cipher,
    sender,
    logger,
    telegramBaseUrl: options.telegramBaseUrl ?? 'http://127.0.0.1:9',
    options: notifierOptions,
  });
  return {
    notifier,
    queues,
    redis,
    async stop() {
      await notifier.close();
      await queues.close();
      if (!options.sender) sender.close();
      workerConnection.disconnect();
      redis.disconnect();
    },
  };
}

export interface DeliveryRow {
  id: string;
  channel_id: string;
  feed_item_id: string;
  message_id: string;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  attempts: number;
  late: boolean;
  last_error: string | null;
  last_status: number | null;
  digest_id: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
}

export async function deliveriesOf(pool: pg.Pool, channelId: string): Promise<DeliveryRow[]> {
  const { rows } = await pool.query<DeliveryRow>(
    `SELECT d.* FROM deliveries d JOIN feed_items f ON f.id = d.feed_item_id WHERE d.channel_id = $1 ORDER BY f.detected_at, d.id`,
    [channelId],
  );
  return rows;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

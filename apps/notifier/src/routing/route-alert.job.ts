import type pg from 'pg';
import { channelKindOf, takesDigests } from '@hashwatch/channels';
import type { Logger } from '@hashwatch/logger';
import { newId } from '@hashwatch/db';
import { routingChannel, type ChannelRow } from '../delivery/channel-store';
import { messageIdFor } from '../delivery/delivery-store';
import type { DrainScheduler } from '../delivery/drain-scheduler';
import type { NotifierMetrics } from '../notifier-metrics';
import { matchingSource, type EngagementCategories, type RoutingItem } from './channel-routing';

export interface RouteDeps {
  pool: pg.Pool;
  drains: DrainScheduler;
  metrics: NotifierMetrics;
  /** Items detected more than this long after their posted_at are late: chat platforms do not get them. */
  alertMaxAgeMs: number;
}

interface ItemRow extends RoutingItem {
  id: string;
  user_id: string;
  /** detected_at minus posted_at, whole milliseconds; null without posted_at (likes and retweets). */
  age_ms: number | null;
  track_likes: boolean;
  track_reposts: boolean;
  track_comments: boolean;
  channels: RoutingRow[];
}

type RoutingRow = Pick<ChannelRow, 'id' | 'hashtags' | 'accounts' | 'source_filter' | 'engagement_alerts' | 'kind' | 'format' | 'url'>;

/** One delivery routing creates: pending, or skipped for good (a late item to a chat platform). */
interface Pair {
  feedItemId: string;
  channelId: string;
  userId: string;
  kind: ReturnType<typeof channelKindOf>;
  late: boolean;
  /** Why it is not sent; undefined when it is. */
  skipped: string | undefined;
}

/**
 * The item is late when it was detected more than the cutoff after X says it was posted (catch-up after an outage
 * of the scanner or of X). Chat platforms, read by people, are spared a flood of old posts; json channels, read by
 * machines, still get every item, flagged. The item is stored either way, and its quota unit spent with it.
 */
function skipReason(item: ItemRow, alertMaxAgeMs: number): string | undefined {
  if (item.age_ms === null || item.age_ms <= alertMaxAgeMs) return undefined;
  const after = Math.floor(item.age_ms / 1000);
  return `not sent: a late alert, detected ${after} s after it was posted (more than ALERT_MAX_AGE_SECONDS, ${alertMaxAgeMs / 1000}); chat platforms get no catch-up alerts`;
}

export interface RouteRequest {
  feedItemId: string;
  userId: string;
}

export interface RouteResult {
  channels: number;
  created: number;
}

/** One feed item to route: its payload and the logger of the job that carries it (a route-alerts job's items share one). */
export interface RouteJob {
  payload: RouteRequest;
  log: Logger;
}

/** The deliveries to create: one per item and matched channel, skipped when a late item meets a chat platform. */
function pairsOf(targetsOf: ReadonlyMap<string, RoutingRow[]>, items: ReadonlyMap<string, ItemRow>, alertMaxAgeMs: number): Pair[] {
  return [...targetsOf].flatMap(([feedItemId, channels]) => {
    const item = items.get(feedItemId)!;
    const reason = skipReason(item, alertMaxAgeMs);
    return channels.map((channel) => {
      const kind = channelKindOf(channel);
      return { feedItemId, channelId: channel.id, userId: item.user_id, kind, late: reason !== undefined, skipped: takesDigests(kind) ? reason : undefined };
    });
  });
}

/**
 * Inserts the deliveries in one statement, those already there left alone; answers how many each item got. A skipped
 * delivery is terminal from the start (no attempt, nothing due), so the delivery log accounts for every (channel,
 * item) pair and nothing is left pending.
 */
async function insertDeliveries(deps: RouteDeps, pairs: Pair[], typeOf: (feedItemId: string) => string): Promise<Map<string, number>> {
  const createdPer = new Map<string, number>();
  if (pairs.length === 0) return createdPer;
  const { rows: inserted } = await deps.pool.query<{ feed_item_id: string; channel_id: string; status: 'pending' | 'skipped' }>(
    `INSERT INTO deliveries (id, user_id, channel_id, feed_item_id, message_id, status, attempts, next_attempt_at, last_error, late,
                             created_at, updated_at)
     SELECT d.id, d.user_id, d.channel_id, d.feed_item_id, d.message_id,
            CASE WHEN d.skipped IS NULL THEN 'pending' ELSE 'skipped' END::delivery_status, 0,
            CASE WHEN d.skipped IS NULL THEN now() END, d.skipped, d.late, now(), now()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[])
            AS d(id, user_id, channel_id, feed_item_id, message_id, skipped, late)
     ON CONFLICT (channel_id, feed_item_id) DO NOTHING
     RETURNING feed_item_id, channel_id, status`,
    [
      pairs.map(() => newId('dlv')),
      pairs.map((pair) => pair.userId),
      pairs.map((pair) => pair.channelId),
      pairs.map((pair) => pair.feedItemId),
      pairs.map((pair) => messageIdFor(pair.channelId, pair.feedItemId)),
      pairs.map((pair) => pair.skipped ?? null),
      pairs.map((pair) => pair.late),
    ],
  );
  const kindOf = new Map(pairs.map((pair) => [`${pair.channelId}\n${pair.feedItemId}`, pair.kind]));
  for (const row of inserted) {
    createdPer.set(row.feed_item_id, (createdPer.get(row.feed_item_id) ?? 0) + 1);
    deps.metrics.routed.inc(typeOf(row.feed_item_id));
    if (row.status === 'skipped') deps.metrics.skipped.inc(kindOf.get(`${row.channel_id}\n${row.feed_item_id}`)!);
  }
  return createdPer;
}

/**
 * Routes several feed items with two statements in all: one reads the items and their accounts' live
 * channels, one inserts every delivery. Then the routed channels' drains are kicked, each once. Results are
 * per item, in order; each item's log lines go to its job's logger. Running it twice (a retry, a crash, a second
 * replica) creates nothing new: the unique (channel_id, feed_item_id) absorbs it, and the message id is derived
 * from the pair. A kick that fails is only logged: the sweeper finds due deliveries on its own.
 */
export async function routeAlerts(deps: RouteDeps, jobs: RouteJob[]): Promise<RouteResult[]> {
  const { pool } = deps;
  const requests = jobs.map((job) => job.payload);
  const ids = [...new Set(requests.map((request) => request.feedItemId))];
  // Engagement items take their category switches from the engaged (parent) item, as the source had them at
  // detection.
  const { rows } = await pool.query<ItemRow>(
    `SELECT f.id, f.user_id, f.type, f.hashtag, f.account, f.kind,
            floor(EXTRACT(EPOCH FROM (f.detected_at - f.posted_at)) * 1000)::float8 AS age_ms,
            COALESCE(p.track_likes, f.track_likes) AS track_likes,
            COALESCE(p.track_reposts, f.track_reposts) AS track_reposts,
            COALESCE(p.track_comments, f.track_comments) AS track_comments,
            CASE WHEN cardinality(f.sources) = 0 AND p.id IS NOT NULL THEN p.sources ELSE f.sources END AS sources,
            COALESCE((SELECT json_agg(json_build_object('id', c.id, 'hashtags', c.hashtags, 'accounts', c.accounts,
                                                        'source_filter', c.source_filter, 'engagement_alerts', c.engagement_alerts,
                                                        'kind', c.kind, 'format', c.format, 'url', c.url))
                        FROM notification_channels c
                       WHERE c.user_id = f.user_id AND c.enabled AND c.disabled_reason IS NULL), '[]'::json) AS channels
       FROM feed_items f LEFT JOIN feed_items p ON p.id = f.parent_id
      WHERE f.id = ANY($1::text[])`,
    [ids],
  );
  const items = new Map(rows.map((row) => [row.id, row]));

  const targetsOf = new Map<string, RoutingRow[]>();
  for (const { payload: { feedItemId, userId }, log } of jobs) {
    const item = items.get(feedItemId);
    if (!item || item.user_id !== userId) {
      // Deleted with its account (DELETE /me) before routing ran: nothing to alert.
      log.info('feed item gone before routing', { feedItemId, userId });
      continue;
    }
    const categories: EngagementCategories = { trackLikes: item.track_likes, trackReposts: item.track_reposts, trackComments: item.track_comments };
    targetsOf.set(feedItemId, item.channels.filter((channel) => matchingSource(routingChannel(channel), item, categories) !== undefined));
  }
  const pairs = pairsOf(targetsOf, items, deps.alertMaxAgeMs);
  const createdPer = await insertDeliveries(deps, pairs, (feedItemId) => items.get(feedItemId)!.type);

  // Every target with something to send, not only new rows: a first run may have inserted them and died before
  // waking anyone. A kick drains in this replica's background when it has room (the jobs are done once the rows
  // are committed).
  const channels = [...new Set(pairs.filter((pair) => pair.skipped === undefined).map((pair) => pair.channelId))];
  const kicked = await Promise.allSettled(channels.map((channelId) => deps.drains.kick(channelId)));
  const kickErrors = new Map<string, unknown>();
  kicked.forEach((result, index) => {
    if (result.status === 'rejected') kickErrors.set(channels[index]!, result.reason);
  });

  // A request repeated within the batch reports its deliveries once.
  const reported = new Set<string>();
  return jobs.map(({ payload: { feedItemId, userId }, log }) => {
    if (items.get(feedItemId)?.user_id !== userId) return { channels: 0, created: 0 };
    const first = !reported.has(feedItemId);
    reported.add(feedItemId);
    const targets = (targetsOf.get(feedItemId) ?? []).map((channel) => channel.id);
    const failed = targets.filter((channelId) => kickErrors.has(channelId));
    if (failed.length > 0) log.warn('drain wake failed; the sweeper will pick the deliveries up', { failed: failed.length, error: kickErrors.get(failed[0]!) });
    return { channels: targets.length, created: first ? (createdPer.get(feedItemId) ?? 0) : 0 };
  });
}

// SQLSTATE class 23: a row the statement relies on changed under it, e.g. 23503 when PUT /notifications
// deleted a channel, or DELETE /me a feed item, between the read and the insert.
function isIntegrityViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('23');
}

export interface RouteBatcher {
  /**
   * Routes the items of one route-alerts job, all in the same statement pair (with whatever else is waiting);
   * resolves, per item in order, once every one of its deliveries is committed.
   */
  routeMany(payloads: readonly RouteRequest[], log: Logger): Promise<RouteResult[]>;
}

// Items per routing statement pair: bounds the statements' size; more wait for the next batch. A job's items are
// never split, so one route-alerts job (up to 500) always fits whole.
const MAX_BATCH_ITEMS = 1000;

interface Waiting {
  jobs: RouteJob[];
  resolve: (results: RouteResult[]) => void;
  reject: (error: unknown) => void;
}

/** The queued entries to route next: whole entries, oldest first, while their items fit (the first always). */
function takeBatch(queued: Waiting[]): Waiting[] {
  let items = 0;
  let count = 0;
  while (count < queued.length && (count === 0 || items + queued[count]!.jobs.length <= MAX_BATCH_ITEMS)) {
    items += queued[count]!.jobs.length;
    count += 1;
  }
  return queued.splice(0, count);
}

/**
 * Group commit for routing: the first job routes at once; jobs that arrive while its statements are on their way
 * are routed together in the next batch, a route-alerts job's items always in the same one. Under load many items
 * share two statements; alone, a job waits for nothing. Each job still completes only after its own deliveries
 * are committed. A batch whose insert trips over a row deleted meanwhile (one account's PUT /notifications or
 * DELETE /me) is routed again job by job, and a job that trips again item by item, so only the jobs holding
 * that account's items can fail, and the other items of such a job are routed all the same (its retry finds
 * them routed and creates nothing). Any other failed batch fails each of its jobs. BullMQ retries failed jobs
 * (at least once).
 */
export function createRouteBatcher(deps: RouteDeps): RouteBatcher {
  const queued: Waiting[] = [];
  let running = false;

  const routeAlone = async (entry: Waiting) => {
    // The job on its own first: the reads see the deletion now, and most jobs of the batch pass whole.
    try {
      entry.resolve(await routeAlerts(deps, entry.jobs));
      return;
    } catch (error) {
      if (entry.jobs.length === 1 || !isIntegrityViolation(error)) {
        entry.reject(error);
        return;
      }
    }
    const results: RouteResult[] = [];
    let failure: { error: unknown } | undefined;
    // Then item by item, so an item that still fails fails its job alone and the job's other items are routed.
    for (const job of entry.jobs) {
      try {
        results.push((await routeAlerts(deps, [job]))[0]!);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) entry.reject(failure.error);
    else entry.resolve(results);
  };

  const run = async () => {
    running = true;
    try {
      while (queued.length > 0) {
        const batch = takeBatch(queued);
        const jobs = batch.flatMap((entry) => entry.jobs);
        try {
          const results = await routeAlerts(deps, jobs);
          let next = 0;
          for (const entry of batch) {
            entry.resolve(results.slice(next, next + entry.jobs.length));
            next += entry.jobs.length;
          }
        } catch (error) {
          if (jobs.length === 1 || !isIntegrityViolation(error)) {
            for (const entry of batch) entry.reject(error);
            continue;
          }
          for (const entry of batch) await routeAlone(entry);
        }
      }
    } finally {
      running = false;
    }
  };

  const enqueue = (jobs: RouteJob[]) => {
    const routed = new Promise<RouteResult[]>((resolve, reject) => queued.push({ jobs, resolve, reject }));
    if (!running) void run();
    return routed;
  };

  return {
    routeMany(payloads, log) {
      if (payloads.length === 0) return Promise.resolve([]);
      return enqueue(payloads.map((payload) => ({ payload, log })));
    },
  };
}

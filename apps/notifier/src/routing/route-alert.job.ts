import type pg from 'pg';
import type { Logger } from '@hashwatch/logger';
import { newId } from '@hashwatch/secrets';
import { routingChannel, type ChannelRow } from '../delivery/channel-store';
import { messageIdFor } from '../delivery/delivery-store';
import type { DrainScheduler } from '../delivery/drain-scheduler';
import type { NotifierMetrics } from '../notifier-metrics';
import { matchingSource, type EngagementCategories, type RoutingItem } from './channel-routing';

export interface RouteDeps {
  pool: pg.Pool;
  drains: DrainScheduler;
  metrics: NotifierMetrics;
}

interface ItemRow extends RoutingItem {
  track_likes: boolean;
  track_reposts: boolean;
  track_comments: boolean;
  channels: RoutingRow[];
}

type RoutingRow = Pick<ChannelRow, 'id' | 'hashtags' | 'accounts' | 'source_filter' | 'engagement_alerts'>;

/**
 * route-alert: creates one pending delivery per (channel, feed item) for every enabled channel of the account
 * that should get the item, then kicks those channels' drains. Running it twice (a retry, a crash, a second
 * replica) creates nothing new: the unique (channel_id, feed_item_id) absorbs it, and the message id is
 * derived from the pair. A wake that fails is only logged: the sweeper finds due deliveries on its own.
 */
export async function routeAlert(
  deps: RouteDeps,
  payload: { feedItemId: string; userId: string },
  log: Logger,
): Promise<{ channels: number; created: number }> {
  const { pool } = deps;
  // One round trip for the item and the account's live channels. Engagement items take their category
  // switches from the engaged (parent) item, as the source had them at detection.
  const { rows: items } = await pool.query<ItemRow>(
    `SELECT f.type, f.hashtag, f.account, f.kind,
            COALESCE(p.track_likes, f.track_likes) AS track_likes,
            COALESCE(p.track_reposts, f.track_reposts) AS track_reposts,
            COALESCE(p.track_comments, f.track_comments) AS track_comments,
            CASE WHEN cardinality(f.sources) = 0 AND p.id IS NOT NULL THEN p.sources ELSE f.sources END AS sources,
            COALESCE((SELECT json_agg(json_build_object('id', c.id, 'hashtags', c.hashtags, 'accounts', c.accounts,
                                                        'source_filter', c.source_filter, 'engagement_alerts', c.engagement_alerts))
                        FROM notification_channels c
                       WHERE c.user_id = f.user_id AND c.enabled AND c.disabled_reason IS NULL), '[]'::json) AS channels
       FROM feed_items f LEFT JOIN feed_items p ON p.id = f.parent_id
      WHERE f.id = $1 AND f.user_id = $2`,
    [payload.feedItemId, payload.userId],
  );
  const item = items[0];
  if (!item) {
    // Deleted with its account (DELETE /me) before routing ran: nothing to alert.
    log.info('feed item gone before routing', payload);
    return { channels: 0, created: 0 };
  }
  const categories: EngagementCategories = { trackLikes: item.track_likes, trackReposts: item.track_reposts, trackComments: item.track_comments };

  const targets = item.channels.filter((channel) => matchingSource(routingChannel(channel), item, categories) !== undefined).map((channel) => channel.id);
  if (targets.length === 0) return { channels: 0, created: 0 };

  const { rowCount } = await pool.query(
    `INSERT INTO deliveries (id, user_id, channel_id, feed_item_id, message_id, status, attempts, next_attempt_at, created_at, updated_at)
     SELECT d.id, $2, d.channel_id, $3, d.message_id, 'pending', 0, now(), now(), now()
       FROM unnest($1::text[], $4::text[], $5::text[]) AS d(id, channel_id, message_id)
     ON CONFLICT (channel_id, feed_item_id) DO NOTHING`,
    [
      targets.map(() => newId('dlv')),
      payload.userId,
      payload.feedItemId,
      targets,
      targets.map((channelId) => messageIdFor(channelId, payload.feedItemId)),
    ],
  );
  const created = rowCount ?? 0;
  deps.metrics.routed.inc(item.type, created);

  // Every target, not only new rows: a first run may have inserted them and died before waking anyone. A kick
  // drains in this replica's background when it has room (the job is done once the rows are committed).
  const woken = await Promise.allSettled(targets.map((channelId) => deps.drains.kick(channelId)));
  const failed = woken.filter((result) => result.status === 'rejected');
  if (failed.length > 0) log.warn('drain wake failed; the sweeper will pick the deliveries up', { failed: failed.length, error: (failed[0] as PromiseRejectedResult).reason });
  return { channels: targets.length, created };
}

import type pg from 'pg';
import type { RedisClient } from '@hashwatch/queues';
import type { Logger } from '@hashwatch/logger';
import { runNoticeChecks, type NoticeCheckOptions, type NoticeCheckResult } from '../health/notice-checks';
import { channelsWithDueDeliveries } from './delivery-store';
import type { DrainScheduler } from './drain-scheduler';

export interface DeliverySweeper {
  /** One sweep now (tests); resolves with the channels woken, or undefined when another replica had the tick. */
  sweep(): Promise<number | undefined>;
  /** The notices' time-based checks now (tests); the sweep runs them too, on the replica that has the tick. */
  checkNotices(): Promise<NoticeCheckResult>;
  stop(): Promise<void>;
}

/**
 * The backstop that makes delivery independent of any one wake: every `intervalMs` one replica (a Redis lock
 * per tick) wakes every channel that has due deliveries. It recovers a replica killed mid-send (its claimed
 * deliveries fall due again when the lease ends), a wake lost while Redis was down, and backoff timers. The same
 * replica then runs the notices' time-based checks (a channel failing for 1 h or 24 h, a switched-off channel
 * turned back on, a quota period that ended), so they fire with no alert or send to prompt them.
 */
export function startDeliverySweeper(deps: {
  pool: pg.Pool;
  redis: RedisClient;
  drains: DrainScheduler;
  prefix: string;
  intervalMs: number;
  notices: NoticeCheckOptions;
  logger: Logger;
}): DeliverySweeper {
  const lockKey = `${deps.prefix}:notifier:sweep`;
  let running: Promise<number | undefined> | undefined;
  let stopped = false;

  const sweep = async (): Promise<number | undefined> => {
    const taken = await deps.redis.set(lockKey, '1', 'PX', Math.max(50, Math.floor(deps.intervalMs * 0.9)), 'NX');
    if (taken !== 'OK') return undefined;
    const channels = await channelsWithDueDeliveries(deps.pool);
    await Promise.all(channels.map((channelId) => deps.drains.wake(channelId)));
    if (channels.length > 0) deps.logger.debug('sweep woke channels', { channels: channels.length });
    // Its own failure must not stop the wakes above, nor theirs the checks: logged, and tried again next tick.
    await checkNotices().catch((error: unknown) => deps.logger.warn('notice checks failed', { error }));
    return channels.length;
  };

  const checkNotices = async (): Promise<NoticeCheckResult> => {
    const result = await runNoticeChecks(deps.pool, deps.notices);
    if (result.failing + result.disabled + result.reenabled + result.quotaResolved > 0) deps.logger.info('notice checks', { ...result });
    return result;
  };

  const tick = () => {
    if (stopped || running) return;
    running = sweep()
      .catch((error: unknown) => {
        deps.logger.warn('delivery sweep failed', { error });
        return undefined;
      })
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, deps.intervalMs);

  return {
    sweep,
    checkNotices,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

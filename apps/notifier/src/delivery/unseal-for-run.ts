import { ChannelConfigError, channelKindOf, unsealChannel, UnreadableSecretError, type ChannelConfig } from '@hashwatch/channels';
import type { Logger } from '@hashwatch/logger';
import { refuseChannel } from '../health/channel-health';
import type { ChannelRow } from './channel-store';
import { markFailed, markRetry, type SendTable } from './delivery-store';
import type { DrainDeps } from './drain-contract';
import { retryDelayMs } from './retry-delay';

/** How a drain run ends when its channel's row gives no config. */
type Stop = { kind: 'stopped' } | { kind: 'paced'; waitMs: number };

const UNREADABLE_REASON =
  "not sent: the channel's secret cannot be opened with SECRETS_KEY (nor SECRETS_KEY_PREVIOUS) of this " +
  'notifier; restart it with the key the secret was sealed with, or save the webhook again without its id, ' +
  'or send the bot token again';

/**
 * The channel's config for one drain run, secrets unsealed for that run only, or how the run ends when the row
 * cannot give one; the deliveries it claimed (`batch`) are then recorded, none is left claimed.
 *
 * A secret that does not open with this replica's SECRETS_KEY (nor SECRETS_KEY_PREVIOUS) is, during a key
 * rotation, this replica's keys being older than the row's (a gateway on the new key sealed it, or
 * secrets:reseal ran before this replica was restarted), and a replica on the new key can send it; otherwise the
 * row is damaged. Either way nothing is lost: the claimed deliveries retry with backoff, saying why, and fail
 * only when the retry window ends. A secret the channel's kind needs and does not have (a json channel is never
 * sent unsigned) can never work: the channel is disabled, as when a platform says its destination is gone.
 */
export async function unsealForRun(
  deps: DrainDeps,
  channel: ChannelRow,
  batch: Record<SendTable, { id: string; attempts: number }[]>,
  claimToken: string,
  log: Logger,
): Promise<{ config: ChannelConfig } | { stop: Stop }> {
  try {
    return { config: unsealChannel(channel, { cipher: deps.cipher, telegramBaseUrl: deps.telegramBaseUrl }) };
  } catch (error) {
    if (!(error instanceof UnreadableSecretError) && !(error instanceof ChannelConfigError)) throw error;
    const tables = (['deliveries', 'notice_deliveries'] as const).filter((table) => batch[table].length > 0);
    const idsOf = (table: SendTable) => batch[table].map((delivery) => delivery.id);
    const ids = tables.flatMap(idsOf);
    if (ids.length === 0) return { stop: { kind: 'stopped' } };
    if (error instanceof ChannelConfigError) {
      const reason = `the channel cannot be used: ${error.message}`;
      for (const table of tables) await markFailed(deps.pool, idsOf(table), claimToken, null, reason, table);
      const kind = channelKindOf(channel);
      const { failed } = await refuseChannel(deps.pool, channel.id, { platform: kind, status: null, reason });
      deps.metrics.failed.inc(kind, ids.length + failed);
      log.warn('channel disabled', { channelId: channel.id, kind, deliveries: ids.length, reason, pendingFailed: failed });
      return { stop: { kind: 'stopped' } };
    }
    const { options } = deps;
    const attempts = Math.max(...tables.flatMap((table) => batch[table].map((delivery) => delivery.attempts)));
    const delayMs = retryDelayMs(attempts, { baseMs: options.backoffBaseMs, maxMs: options.maxBackoffMs }, deps.random);
    let gaveUp = 0;
    for (const table of tables) {
      const retried = await markRetry(deps.pool, idsOf(table), claimToken, { status: null, reason: UNREADABLE_REASON, delayMs, retryWindowMs: options.retryWindowMs }, table);
      gaveUp += retried.gaveUp;
    }
    log.error('channel secret cannot be opened', { channelId: channel.id, deliveries: ids.length, delayMs, gaveUp });
    return { stop: { kind: 'paced', waitMs: delayMs } };
  }
}

import type { ChannelMessage } from '@hashwatch/channels';
import { matchingSource } from '../routing/channel-routing';
import { alertFor } from './alert-message';
import { routingChannel, type ChannelRow } from './channel-store';
import { digestIdFor, type ClaimedDelivery, type ClaimedNotice, type SendTable } from './delivery-store';

/** One message of a claim: a single alert, a digest of several (chat platforms only), or a system notice. */
export interface Outgoing {
  /** Where its sends are recorded: `deliveries` (alerts) or `notice_deliveries` (a notice). */
  table: SendTable;
  deliveries: { id: string; attempts: number }[];
  message: ChannelMessage;
  messageId: string;
  digest: boolean;
  /**
   * Messages with the same key are sent one after the other, in claim order, even to a receiver that takes several
   * at once: an item's alert and the engagement alerts of it (keyed by the post's item) never overtake each other.
   */
  orderKey: string;
}

/** The claimed ids of one message, and the table they are in. */
export interface ClaimedIds {
  table: SendTable;
  ids: string[];
}

/** A notice is one message on every platform: its own card, never part of a digest, no alert template. */
export function noticeMessages(notices: ClaimedNotice[]): Outgoing[] {
  return notices.map((send) => ({
    table: 'notice_deliveries',
    deliveries: [{ id: send.id, attempts: send.attempts }],
    message: { type: 'notice', notice: send.notice },
    messageId: send.message_id,
    digest: false,
    orderKey: send.message_id,
  }));
}

/** A claim's alerts as messages: one per delivery, or one digest of them all. */
export function alertMessages(batch: ClaimedDelivery[], channel: ChannelRow, digest: boolean): Outgoing[] {
  const routing = routingChannel(channel);
  const alertOf = (delivery: ClaimedDelivery) =>
    alertFor(delivery, matchingSource(routing, { ...delivery, kind: delivery.kind }, { trackLikes: true, trackReposts: true, trackComments: true }));
  if (digest && batch.length > 1) {
    const alerts = batch.map(alertOf);
    const messageId = digestIdFor(batch.map((d) => d.id));
    return [{ table: 'deliveries', deliveries: batch, message: { type: 'digest', alerts, total: alerts.length }, messageId, digest: true, orderKey: messageId }];
  }
  return batch.map((delivery) => ({
    table: 'deliveries',
    deliveries: [delivery],
    message: alertOf(delivery),
    messageId: delivery.message_id,
    digest: false,
    orderKey: delivery.parent_id ?? delivery.feed_item_id,
  }));
}

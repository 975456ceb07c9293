import type { ChannelMessage } from '@hashwatch/channels';
import type { ClaimedNotice, SendTable } from './delivery-store';

/** One message of a claim: a single alert, a digest of several (chat platforms only), or a system notice. */
export interface Outgoing {
  /** Where its sends are recorded: `deliveries` (alerts) or `notice_deliveries` (a notice). */
  table: SendTable;
  deliveries: { id: string; attempts: number }[];
  message: ChannelMessage;
  messageId: string;
  digest: boolean;
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
  }));
}


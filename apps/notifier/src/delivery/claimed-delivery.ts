import type { AlertMedia, AlertQuoted, AlertUrl } from '@hashwatch/channels';

/** A pending delivery claimed for one attempt, with the feed item it carries. */
export interface ClaimedDelivery {
  id: string;
  message_id: string;
  attempts: number;
  feed_item_id: string;
  /** Routing found the item late (catch-up after an outage): sent to json channels with `late: true`, never to chat. */
  late: boolean;
  type: 'hashtag' | 'account' | 'engagement';
  hashtag: string | null;
  account: string | null;
  /** How the item's `account` matched it (`author` or `mention`); null on older items and on other types. */
  matched_by: 'author' | 'mention' | null;
  sources: string[];
  author: string;
  author_name: string;
  text: string;
  url: string;
  /** CONTRACT 9; `urls` and `media` are null when empty. `deleted`: X deleted the post since, the delivery is skipped. */
  lang: string | null;
  urls: AlertUrl[] | null;
  media: AlertMedia[] | null;
  quoted: AlertQuoted | null;
  edited_at: Date | null;
  deleted: boolean;
  posted_at: Date | null;
  detected_at: Date;
  parent_id: string | null;
  kind: 'retweet' | 'like' | 'reply' | null;
  parent_url: string | null;
  parent_text: string | null;
}

import type { ChannelKind } from './channel-config';

export type AlertType = 'hashtag' | 'account' | 'engagement';

/** A link of the post (CONTRACT 9): `url` is X's t.co link as it stands in `text`. */
export interface AlertUrl {
  url: string;
  expanded_url: string;
  display_url: string;
}

/** A photo, video or GIF of the post (CONTRACT 9); `url` is set for photos, `preview_image_url` for videos and GIFs. */
export interface AlertMedia {
  /** X's media type: `photo`, `video` or `animated_gif` (kept open for new kinds). */
  type: string;
  url: string | null;
  preview_image_url: string | null;
  width: number | null;
  height: number | null;
  alt_text: string | null;
}

/** The post this one quotes (CONTRACT 9). */
export interface AlertQuoted {
  /** X's id of the quoted post. */
  id: string;
  /** Handle with `@`. */
  author: string;
  author_name: string;
  text: string;
  url: string;
}
export type EngagementKind = 'retweet' | 'like' | 'reply';

/**
 * What one alert is about: the feed item (as `GET /v1/posts` returns it) in the shape the formatters need.
 * Prefixes as the API gives them: `author` and `source` carry `@`/`#`, `hashtag` and `account` are bare.
 */
export interface AlertPost {
  /** The feed item's `post_` id, when known; receivers of the json format can use it to deduplicate. */
  id?: string;
  type: AlertType;
  /** The source that matched: `#btc`, `$tsla` or `@alice`. */
  source: string;
  /** Bare hashtag (`btc`); empty for account posts. */
  hashtag: string;
  /** Bare account (`alice`); empty for hashtag posts. */
  account: string;
  /** With `account` set: `author` (the account wrote it) or `mention` (it mentions the account). Absent: `author`. */
  matched_by?: 'author' | 'mention';
  /** Author handle with `@`; for engagement alerts the engaging account. */
  author: string;
  author_name: string;
  /**
   * Post text as its author wrote it (X's HTML escaping undone, the whole long post, a retweet's whole original):
   * every formatter escapes it for its own platform. For retweet and like events a fixed note.
   */
  text: string;
  url: string;
  /** The post's links; `url` of each is the t.co link in `text`. Absent or empty: none. */
  urls?: AlertUrl[];
  /** The post's media, in X's order. Absent or empty: none. */
  media?: AlertMedia[];
  /** The quoted post, or null/absent. */
  quoted?: AlertQuoted | null;
  /** X's language code (`en`, `und`, `qst`…), or null. */
  lang?: string | null;
  /** When the newest version of an edited post was seen; null/absent when never edited. */
  edited_at?: string | null;
  /** The post was deleted on X: its text, author name, links and media are gone. */
  deleted?: boolean;
  posted_at: string | null;
  detected_at: string;
  /** Engagement alerts only: what the account did. */
  kind?: EngagementKind;
  /** Engagement alerts only: the engaged post. */
  parent_id?: string;
  parent_url?: string;
  parent_text?: string;
  /** Set on the alert sent by `POST /notifications/test`. */
  test?: boolean;
  /**
   * Detected more than ALERT_MAX_AGE_SECONDS after `posted_at` (catch-up after an outage). Only json channels are
   * sent late alerts, with a top-level `late: true`; chat platforms never get them.
   */
  late?: boolean;
}

/** Several alerts sent as one message when a chat channel is paced (never to json channels: each item is its own message there). */
export interface AlertDigest {
  type: 'digest';
  /** Shown in order; only the first {@link MAX_DIGEST_ALERTS} are listed. */
  alerts: AlertPost[];
  /** How many alerts the digest stands for (defaults to `alerts.length`); the rest are counted, not listed. */
  total?: number;
}

/** The kinds of system notice (CONTRACT 8). */
export type NoticeKindName = 'source_silent' | 'source_failing' | 'channel_failing' | 'channel_disabled' | 'quota_warning' | 'quota_exhausted';

/**
 * A system notice as `GET /v1/notices` returns it, as of the message that carries it: the opening message says
 * `state: "open"` and `resolved_at: null`, the resolution `state: "resolved"` with its time, whenever either is sent.
 */
export interface NoticeBody {
  /** `ntc_…`. */
  id: string;
  kind: NoticeKindName;
  state: 'open' | 'resolved';
  /** `#tag`, `$tag` or `@user`, or null. */
  source: string | null;
  /** The channel the notice is about as the API names it (`wh_…` or `bot`), or null. */
  channel_id: string | null;
  message: string;
  opened_at: string;
  resolved_at: string | null;
}

/** Hashwatch telling the account about its own monitoring: its own card on chat platforms, `type: "notice"` on json. */
export interface SystemNotice {
  type: 'notice';
  notice: NoticeBody;
}

export type ChannelMessage = AlertPost | AlertDigest | SystemNotice;

/** A digest lists at most this many alerts; Discord allows 10 embeds and the other platforms stay readable. */
export const MAX_DIGEST_ALERTS = 10;

export function isDigest(message: ChannelMessage): message is AlertDigest {
  return message.type === 'digest';
}

export function isNotice(message: ChannelMessage): message is SystemNotice {
  return message.type === 'notice';
}

/**
 * Whether a burst to this kind of channel may be folded into digests: only on chat platforms, where a person
 * reads them. A json channel is read by a machine that processes and dedupes per item by
 * `webhook-id`, so it always gets one message per feed item, whatever the backlog.
 */
export function takesDigests(kind: ChannelKind): boolean {
  return kind !== 'json';
}

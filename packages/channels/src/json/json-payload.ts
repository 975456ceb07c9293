import type { AlertMedia, AlertPost, AlertQuoted, AlertUrl, NoticeBody, SystemNotice } from '../alert';
import { noticeContent, plainNotice } from '../notice-content';
import { cardContent, plainCard } from '../card-content';
import { renderTemplate } from '../template';

/** A feed item as the json format sends it: the `GET /posts` item fields (the fields and prefixes of the OpenAPI document's FeedItem). */
export interface JsonPost {
  id: string | null;
  type: AlertPost['type'];
  source: string;
  hashtag: string | null;
  account: string | null;
  /** `author` or `mention` when `account` is set (the account source it was routed for); null otherwise. */
  matched_by: 'author' | 'mention' | null;
  author: string;
  author_name: string;
  /** As the author wrote it (X's HTML escaping undone): receivers escape it for wherever they show it. */
  text: string;
  url: string;
  /** CONTRACT 9, as `GET /v1/posts` gives them: `[]` when none. */
  urls: AlertUrl[];
  media: AlertMedia[];
  quoted: AlertQuoted | null;
  lang: string | null;
  edited_at: string | null;
  deleted: boolean;
  posted_at: string | null;
  detected_at: string;
  kind?: AlertPost['kind'];
  parent_id?: string | null;
  parent_url?: string | null;
  parent_text?: string | null;
}

/** One feed item per message, whatever the backlog: json channels never get digests (docs/decisions/notifications.md). */
export interface JsonPayload {
  type: 'post' | 'engagement' | 'test';
  post: JsonPost;
  text: string;
  /** Present, and true, only on a late alert (catch-up after an outage); absent otherwise. */
  late?: true;
}

export function jsonPost(alert: AlertPost): JsonPost {
  const post: JsonPost = {
    id: alert.id ?? null,
    type: alert.type,
    source: alert.source,
    // The feed uses null, not "", for the source kind that did not match.
    hashtag: alert.hashtag || null,
    account: alert.account || null,
    // For the account source the alert was routed for, whatever the item's first source was.
    matched_by: alert.type !== 'engagement' && alert.account ? (alert.matched_by ?? 'author') : null,
    author: alert.author,
    author_name: alert.author_name,
    text: alert.text,
    url: alert.url,
    // Copied field by field, so the payload holds exactly the documented fields whatever else the alert carries.
    urls: (alert.urls ?? []).map(({ url, expanded_url, display_url }) => ({ url, expanded_url, display_url })),
    media: (alert.media ?? []).map(({ type, url, preview_image_url, width, height, alt_text }) => ({
      type,
      url,
      preview_image_url,
      width,
      height,
      alt_text,
    })),
    quoted: alert.quoted ? { id: alert.quoted.id, author: alert.quoted.author, author_name: alert.quoted.author_name, text: alert.quoted.text, url: alert.quoted.url } : null,
    lang: alert.lang ?? null,
    edited_at: alert.edited_at ?? null,
    deleted: alert.deleted ?? false,
    posted_at: alert.posted_at,
    detected_at: alert.detected_at,
  };
  if (alert.type !== 'engagement') return post;
  return {
    ...post,
    kind: alert.kind,
    parent_id: alert.parent_id ?? null,
    parent_url: alert.parent_url ?? null,
    parent_text: alert.parent_text ?? null,
  };
}

/** `text` is what a chat platform would show: the rendered template, or the default card as plain text. */
export function jsonAlertPayload(alert: AlertPost, template: string): JsonPayload {
  const type = alert.test ? 'test' : alert.type === 'engagement' ? 'engagement' : 'post';
  const text = template !== '' ? renderTemplate(template, alert) : plainCard(cardContent(alert));
  return alert.late ? { type, post: jsonPost(alert), text, late: true } : { type, post: jsonPost(alert), text };
}

/** A system notice on a json channel (CONTRACT 8): only to channels whose `notices` switch is on. */
export interface JsonNoticePayload {
  type: 'notice';
  notice: NoticeBody;
  /** What a chat platform would show, as plain text. */
  text: string;
}

export function jsonNoticePayload(message: SystemNotice): JsonNoticePayload {
  return { type: 'notice', notice: message.notice, text: plainNotice(noticeContent(message.notice)) };
}

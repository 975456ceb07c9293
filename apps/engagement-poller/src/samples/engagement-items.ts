import type { NewFeedItem } from '@hashwatch/feed';
import type { SampleKind } from './sample-kinds';

/** An account seen engaging with a post; for replies, with its first reply seen. */
export interface Engager {
  /** X user id: part of the dedupe key, so a handle change never alerts twice. */
  id: string;
  username: string;
  name: string;
  reply: { id: string; text: string; postedAt: Date | null } | null;
}

/** The feed item an engagement item hangs under (the account's item of the engaged post). */
export interface ParentItem {
  id: string;
  userId: string;
  xPostId: string;
  url: string;
  hashtag: string | null;
  account: string | null;
  sources: string[];
}

/**
 * Retweet and like events carry a fixed note instead of post content; replies carry their own text. Kept short
 * and in the third person, so a template like `{author}: {text}` reads as a sentence.
 */
export const ENGAGEMENT_NOTES = { like: 'liked this post', retweet: 'reposted this post' } as const;

/** `e:<post id>:<kind>:<engager id>`: one engagement item per account, post, kind and engaging account. */
export function engagementDedupeKey(xPostId: string, kind: SampleKind, engagerId: string): string {
  return `e:${xPostId}:${kind}:${engagerId}`;
}

/** x.com/<handle>/status/<id> opens a post; the handle part is cosmetic for X, so any handle works. */
export function postUrl(username: string, postId: string): string {
  return `https://x.com/${username}/status/${postId}`;
}

/**
 * The `engagement` feed item telling one account that `engager` engaged with the post of `parent` (the feed
 * shows them as `parent_id` and `kind`): author is the engaging account, `url` the engaged post for likes and
 * retweets and the reply itself for replies, `posted_at` the reply's time (null for likes and retweets: X does
 * not say when).
 * Source fields are the parent's, so a channel's scope applies to the event as to its post.
 */
export function engagementItem(kind: SampleKind, parent: ParentItem, engager: Engager): NewFeedItem {
  const reply = kind === 'reply' ? engager.reply : null;
  return {
    userId: parent.userId,
    dedupeKey: engagementDedupeKey(parent.xPostId, kind, engager.id),
    type: 'engagement',
    hashtag: parent.hashtag,
    account: parent.account,
    sources: parent.sources,
    xPostId: parent.xPostId,
    authorId: engager.id,
    author: `@${engager.username}`,
    authorName: engager.name,
    text: kind === 'reply' ? (reply?.text ?? '') : ENGAGEMENT_NOTES[kind],
    url: reply ? postUrl(engager.username, reply.id) : parent.url,
    postedAt: reply?.postedAt ?? null,
    parentId: parent.id,
    kind,
  };
}

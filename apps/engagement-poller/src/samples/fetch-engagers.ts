import type { XClient, XPost } from '@hashwatch/x-api';
import type { Engager } from './engagement-items';
import type { SampleKind } from './sample-kinds';

export interface SampleTarget {
  postId: string;
  /**
   * Every version of an edited post, oldest first (just `postId` otherwise): X gives each engagement to the
   * version shown at the time, so likes and retweets are sampled on the newest, replies to any version count.
   */
  versionIds?: readonly string[];
  /** The thread the post belongs to (x_posts.conversation_id); the post's own id when it starts one. */
  conversationId: string;
  /** Replies only: return replies newer than this id. */
  sinceId: string | null;
}

export interface FetchedEngagers {
  /** Newest first, each account once. */
  engagers: Engager[];
  /** Replies only: the newest post the search returned, for the next sample's cursor. */
  newestId: string | null;
}

function isReplyTo(post: XPost, postIds: ReadonlySet<string>): boolean {
  return post.referencedPosts.some((reference) => reference.type === 'replied_to' && postIds.has(reference.id));
}

/**
 * One upstream call for one category of one post (the sample): the newest 100 liking accounts (X keeps 100
 * per post for all time), the newest 100 retweeting accounts, or the newest 100 direct replies through
 * recent search `conversation_id:` (X has no replies endpoint; a reply shares its thread's conversation id,
 * so replies to replies are dropped here: reply_count counts direct replies). One page only: samples are
 * capped lists and every further page is another call against a 75-per-15-minutes limit.
 */
export async function fetchEngagers(x: XClient, kind: SampleKind, target: SampleTarget): Promise<FetchedEngagers> {
  const versions = target.versionIds && target.versionIds.length > 0 ? target.versionIds : [target.postId];
  const newest = versions[versions.length - 1] as string;
  if (kind === 'like') {
    const page = await x.likingUsers(newest, { maxResults: 100 });
    return { engagers: page.users.map((user) => ({ id: user.id, username: user.username, name: user.name, reply: null })), newestId: null };
  }
  if (kind === 'retweet') {
    const page = await x.retweetedBy(newest, { maxResults: 100 });
    return { engagers: page.users.map((user) => ({ id: user.id, username: user.username, name: user.name, reply: null })), newestId: null };
  }
  // Each version of an edited post that starts its thread starts its own conversation (X gives it its own id as
  // conversation_id); a post inside a thread keeps the thread's.
  const conversations = target.conversationId === target.postId ? versions : [target.conversationId];
  const conversation = conversations.length === 1 ? `conversation_id:${conversations[0]}` : `(${conversations.map((id) => `conversation_id:${id}`).join(' OR ')})`;
  const page = await x.searchRecent({
    query: `${conversation} is:reply`,
    maxResults: 100,
    ...(target.sinceId ? { sinceId: target.sinceId } : {}),
  });
  // Oldest first, so an account that replied twice is represented by its first reply.
  const byAuthor = new Map<string, Engager>();
  const replyTargets = new Set(versions);
  for (const post of [...page.posts].reverse()) {
    if (!post.author || !isReplyTo(post, replyTargets) || byAuthor.has(post.author.id)) continue;
    byAuthor.set(post.author.id, {
      id: post.author.id,
      username: post.author.username,
      name: post.author.name,
      reply: { id: post.id, text: post.text, postedAt: post.createdAt ? new Date(post.createdAt) : null },
    });
  }
  return { engagers: [...byAuthor.values()].reverse(), newestId: page.meta.newestId ?? page.posts[0]?.id ?? null };
}

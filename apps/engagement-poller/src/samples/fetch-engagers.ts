import type { XClient, XPost } from '@hashwatch/x-api';
import type { Engager } from './engagement-items';
import type { SampleKind } from './sample-kinds';

export interface SampleTarget {
  postId: string;
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

function isReplyTo(post: XPost, postId: string): boolean {
  return post.referencedPosts.some((reference) => reference.type === 'replied_to' && reference.id === postId);
}

/**
 * One upstream call for one category of one post (the sample): the newest 100 liking accounts (X keeps 100
 * per post for all time), the newest 100 retweeting accounts, or the newest 100 direct replies through
 * recent search `conversation_id:` (X has no replies endpoint; a reply shares its thread's conversation id,
 * so replies to replies are dropped here: reply_count counts direct replies). One page only: samples are
 * capped lists and every further page is another call against a 75-per-15-minutes limit.
 */
export async function fetchEngagers(x: XClient, kind: SampleKind, target: SampleTarget): Promise<FetchedEngagers> {
  if (kind === 'like') {
    const page = await x.likingUsers(target.postId, { maxResults: 100 });
    return { engagers: page.users.map((user) => ({ id: user.id, username: user.username, name: user.name, reply: null })), newestId: null };
  }
  if (kind === 'retweet') {
    const page = await x.retweetedBy(target.postId, { maxResults: 100 });
    return { engagers: page.users.map((user) => ({ id: user.id, username: user.username, name: user.name, reply: null })), newestId: null };
  }
  const page = await x.searchRecent({
    query: `conversation_id:${target.conversationId} is:reply`,
    maxResults: 100,
    ...(target.sinceId ? { sinceId: target.sinceId } : {}),
  });
  // Oldest first, so an account that replied twice is represented by its first reply.
  const byAuthor = new Map<string, Engager>();
  for (const post of [...page.posts].reverse()) {
    if (!post.author || !isReplyTo(post, target.postId) || byAuthor.has(post.author.id)) continue;
    byAuthor.set(post.author.id, {
      id: post.author.id,
      username: post.author.username,
      name: post.author.name,
      reply: { id: post.id, text: post.text, postedAt: post.createdAt ? new Date(post.createdAt) : null },
    });
  }
  return { engagers: [...byAuthor.values()].reverse(), newestId: page.meta.newestId ?? page.posts[0]?.id ?? null };
}

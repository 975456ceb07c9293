import type { PostCountsResponse, PostListResponse, WireMetrics, WirePost, WireProblem, WireUser } from './x-response.schema';
import type { XPost, XPostCountsLookup, XPostLookup, XPostMetrics, XPostPage, XProblem, XUser } from './x-types';

export function normalizeUser(user: WireUser): XUser {
  return { id: user.id, username: user.username, name: user.name };
}

export function normalizeProblem(problem: WireProblem): XProblem {
  const value = problem.value;
  return {
    type: problem.type ?? 'about:blank',
    title: problem.title ?? null,
    detail: problem.detail ?? null,
    resourceType: problem.resource_type ?? null,
    resourceId: problem.resource_id ?? null,
    parameter: problem.parameter ?? null,
    value: value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value),
  };
}

/** public_metrics in one shape whichever spelling X used (`retweet_count` or 2.167's `repost_count`). */
export function normalizeMetrics(metrics: WireMetrics): XPostMetrics {
  return {
    // The schema guarantees one of the two spellings.
    retweetCount: metrics.retweet_count ?? metrics.repost_count ?? 0,
    replyCount: metrics.reply_count,
    likeCount: metrics.like_count,
    quoteCount: metrics.quote_count ?? 0,
    bookmarkCount: metrics.bookmark_count ?? null,
    impressionCount: metrics.impression_count ?? null,
  };
}

/** One post in one shape whichever spelling X used; the author comes from the users X included. */
export function normalizePost(post: WirePost, usersById: ReadonlyMap<string, XUser>): XPost {
  const references = post.referenced_tweets ?? post.referenced_posts ?? [];
  const metrics = post.public_metrics;
  const has = (type: string) => references.some((reference) => reference.type === type);
  return {
    id: post.id,
    text: post.text,
    authorId: post.author_id ?? null,
    author: post.author_id ? (usersById.get(post.author_id) ?? null) : null,
    createdAt: post.created_at === undefined ? null : new Date(post.created_at).toISOString(),
    lang: post.lang ?? null,
    conversationId: post.conversation_id ?? null,
    inReplyToUserId: post.in_reply_to_user_id ?? null,
    referencedPosts: references.map((reference) => ({ type: reference.type, id: reference.id })),
    isRetweet: has('retweeted'),
    isReply: has('replied_to'),
    isQuote: has('quoted'),
    hashtags: (post.entities?.hashtags ?? []).map(({ start, end, tag }) => ({ start, end, tag })),
    cashtags: (post.entities?.cashtags ?? []).map(({ start, end, tag }) => ({ start, end, tag })),
    mentions: (post.entities?.mentions ?? []).map(({ start, end, username, id }) => ({ start, end, username: username ?? null, id: id ?? null })),
    metrics: metrics ? normalizeMetrics(metrics) : null,
    editHistoryPostIds: post.edit_history_tweet_ids ?? post.edit_history_post_ids ?? [post.id],
  };
}

/** data + includes (tweets or posts) + partial errors of a post list answer. */
export function normalizePostLookup(body: PostListResponse): XPostLookup {
  const usersById = new Map((body.includes?.users ?? []).map((user) => [user.id, normalizeUser(user)] as const));
  const included = body.includes?.tweets ?? body.includes?.posts ?? [];
  return {
    posts: (body.data ?? []).map((post) => normalizePost(post, usersById)),
    includedPosts: included.map((post) => normalizePost(post, usersById)),
    errors: (body.errors ?? []).map(normalizeProblem),
  };
}

/** The counts-only lookup: each post's id and counts, and the partial errors. */
export function normalizePostCounts(body: PostCountsResponse): XPostCountsLookup {
  return {
    posts: (body.data ?? []).map((post) => ({ id: post.id, metrics: post.public_metrics ? normalizeMetrics(post.public_metrics) : null })),
    errors: (body.errors ?? []).map(normalizeProblem),
  };
}

export function normalizePostPage(body: PostListResponse): XPostPage {
  const lookup = normalizePostLookup(body);
  const meta = body.meta ?? {};
  return {
    ...lookup,
    meta: {
      resultCount: meta.result_count ?? lookup.posts.length,
      newestId: meta.newest_id ?? null,
      oldestId: meta.oldest_id ?? null,
      nextToken: meta.next_token ?? null,
    },
  };
}

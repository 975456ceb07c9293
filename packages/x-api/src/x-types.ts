/** An X account as the service uses it. */
export interface XUser {
  id: string;
  username: string;
  name: string;
}

/** `retweeted`, `quoted` or `replied_to`; kept open so a new kind from X never makes a post unreadable. */
export type XReferenceType = 'retweeted' | 'quoted' | 'replied_to' | (string & {});

export interface XTagEntity {
  /** Inclusive start and exclusive end over `text`, in code points, spanning the # or $. */
  start: number;
  end: number;
  /** The tag without # or $, in the case it was written. */
  tag: string;
}

export interface XMentionEntity {
  start: number;
  end: number;
  username: string | null;
  id: string | null;
}

/** public_metrics, whichever spelling X used (`retweet_count` or `repost_count`). */
export interface XPostMetrics {
  retweetCount: number;
  replyCount: number;
  likeCount: number;
  quoteCount: number;
  bookmarkCount: number | null;
  impressionCount: number | null;
}

/** A post in one shape for both of X's spellings, with its author joined from `includes.users`. */
export interface XPost {
  id: string;
  text: string;
  authorId: string | null;
  /** From includes.users; null when X did not include the author. */
  author: XUser | null;
  /** ISO 8601 UTC. */
  createdAt: string | null;
  lang: string | null;
  conversationId: string | null;
  inReplyToUserId: string | null;
  referencedPosts: { type: XReferenceType; id: string }[];
  isRetweet: boolean;
  isReply: boolean;
  isQuote: boolean;
  hashtags: XTagEntity[];
  cashtags: XTagEntity[];
  mentions: XMentionEntity[];
  metrics: XPostMetrics | null;
  editHistoryPostIds: string[];
}

/** A partial error X sent beside (or instead of) `data` in a 200, e.g. a deleted post in a lookup. */
export interface XProblem {
  /** The problem type URL, e.g. https://api.x.com/2/problems/resource-not-found. */
  type: string;
  title: string | null;
  detail: string | null;
  resourceType: string | null;
  resourceId: string | null;
  parameter: string | null;
  value: string | null;
}

export interface XPageMeta {
  resultCount: number;
  newestId: string | null;
  oldestId: string | null;
  /** Pass back as nextToken / paginationToken for the next (older) page; null on the last one. */
  nextToken: string | null;
}

export interface XPostLookup {
  posts: XPost[];
  /** Posts X put in includes.tweets / includes.posts (referenced posts), normalised the same way. */
  includedPosts: XPost[];
  errors: XProblem[];
}

/** One post's counts from the counts-only lookup; `metrics` is null when X sent none for it. */
export interface XPostCounts {
  id: string;
  metrics: XPostMetrics | null;
}

export interface XPostCountsLookup {
  posts: XPostCounts[];
  /** Deleted or unknown ids, as in {@link XPostLookup}. */
  errors: XProblem[];
}

export interface XPostPage extends XPostLookup {
  meta: XPageMeta;
}

export interface XUserLookup {
  users: XUser[];
  errors: XProblem[];
}

export interface XSingleUser {
  user: XUser | null;
  errors: XProblem[];
}

export interface XUserPage extends XUserLookup {
  meta: { resultCount: number; nextToken: string | null };
}

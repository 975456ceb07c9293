/** An X account as the service uses it. */
export interface XUser {
  id: string;
  username: string;
  name: string;
  /** X's `verified`, or a `verified_type` of blue, business or government; false when X sent neither. */
  verified: boolean;
  /** `public_metrics.followers_count` when X sent it. */
  followersCount: number | null;
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

/** A link of a post: `url` is the t.co link as it stands in `text`; offsets as in {@link XTagEntity}. */
export interface XUrlEntity {
  start: number;
  end: number;
  url: string;
  expandedUrl: string;
  displayUrl: string;
  /** Set on the link X adds for the post's own photo or video page. */
  mediaKey: string | null;
}

/** A photo, video or GIF from `includes.media`, as the post lists them in `attachments.media_keys`. */
export interface XMedia {
  key: string;
  /** `photo`, `video`, `animated_gif`, or a kind X adds later. */
  type: string;
  /** Photos only. */
  url: string | null;
  /** Videos and GIFs. */
  previewImageUrl: string | null;
  width: number | null;
  height: number | null;
  altText: string | null;
}

/** The post a post quotes, from `includes`, with its whole text as written. */
export interface XQuotedPost {
  id: string;
  authorId: string | null;
  author: XUser | null;
  text: string;
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

/**
 * A post in one shape for both of X's spellings, with its author joined from `includes.users`. Its text is the
 * post as its author wrote it: X's HTML escaping undone once, a long post's whole `note_tweet`, a retweet's
 * whole original after `RT @author: `; entity offsets count code points over that text.
 */
export interface XPost {
  id: string;
  /**
   * The first version of the post's edit chain (`edit_history_tweet_ids[0]`): the same for every version, so an
   * edit is recognised as the post it edits. Equal to `id` for a post never edited.
   */
  rootId: string;
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
  urls: XUrlEntity[];
  /** The post's media (a retweet's: the original's), in the order of its media keys. */
  media: XMedia[];
  /** The quoted post when X included it; null otherwise. */
  quoted: XQuotedPost | null;
  metrics: XPostMetrics | null;
  /** Every version's id, oldest first (this post's own id among them). */
  editHistoryPostIds: string[];
  /** X withholds the post in some countries (`withheld.country_codes`); it is still served elsewhere. */
  withheldIn: string[];
}

/** A post X sent that did not fully parse: what was kept of it, and what was left out. */
export interface XMalformedPost {
  /** The post's id, or null when even that was missing (the post was then dropped). */
  id: string | null;
  /** The fields left out (`entities.hashtags.2`, `author`, …), or `post` when the whole post was dropped. */
  dropped: string[];
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
  /** Posts stored with what could be trusted of them, or dropped: the client logs each once. */
  malformed: XMalformedPost[];
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

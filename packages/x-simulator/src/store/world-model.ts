import type { PostEntities, PostLink } from './entities';
import type { PostText } from './post-text';

// The records of the simulated world: users, posts and what a caller gives to make them.

export type ReferenceType = 'retweeted' | 'quoted' | 'replied_to';

export interface PostReference {
  type: ReferenceType;
  id: string;
}

/** X's withholding of a post (TweetWithheld): copyright or country-by-country. */
export interface PostWithheld {
  copyright: boolean;
  countryCodes: string[];
  scope?: 'tweet' | 'user';
}

/** X's withholding of an account (UserWithheld): no copyright flag. */
export interface UserWithheld {
  countryCodes: string[];
  scope?: 'user';
}

export interface SimUser {
  id: string;
  username: string;
  name: string;
  createdAt: number;
  description: string;
  location: string | null;
  verified: boolean;
  protected: boolean;
  followersCount: number;
  followingCount: number;
  listedCount: number;
  postCount: number;
  withheld: UserWithheld | null;
}

export interface PostMetrics {
  retweets: number;
  replies: number;
  likes: number;
  quotes: number;
  bookmarks: number;
  impressions: number;
}

export const MEDIA_TYPES = ['photo', 'video', 'animated_gif'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** A photo, video or GIF attached to a post, as `includes.media` shows it. */
export interface PostMedia {
  /** `<type code>_<id>`: 3 for photos, 7 for videos, 16 for GIFs, as X numbers them. */
  mediaKey: string;
  type: MediaType;
  /** The photo itself (photos only). */
  url?: string;
  /** A still of a video or GIF. */
  previewImageUrl?: string;
  width?: number;
  height?: number;
  altText?: string;
  /** What X adds for some media (duration_ms, variants, public_metrics): kept from a recording, never invented. */
  extra?: Record<string, unknown>;
}

export type NewMedia = Omit<PostMedia, 'mediaKey' | 'extra'>;

/** The versions of an edited post, oldest first; every version shares this one object. */
export interface EditChain {
  ids: string[];
  /** X: a post can be edited for 30 minutes after it is first published... */
  editableUntil: number;
  /** ...up to 5 times. */
  editsRemaining: number;
  /** Retweets, and replies to someone else, can never be edited. */
  eligible: boolean;
}

export interface SimPost {
  id: string;
  num: bigint;
  authorId: string;
  /**
   * The whole text as written, raw (not HTML-escaped), with its t.co links: search reads it. A retweet's is
   * `RT @author: ` and the original's whole text.
   */
  text: string;
  /** Entities over `text`, indices in its code points. */
  entities: PostEntities;
  /** What `text` shows when it is not the whole text: a long post's start, a retweet's 140-character cut. */
  shown: PostText | null;
  /** A long post (over 280 characters): `note_tweet` carries the whole text. */
  long: boolean;
  lang: string;
  createdAt: number;
  /** When the search index shows it (creation plus the index lag); timelines and lookups ignore this. */
  visibleAt: number;
  conversationId: string;
  inReplyToUserId: string | null;
  references: PostReference[];
  media: PostMedia[];
  withheld: PostWithheld | null;
  edits: EditChain;
  /** X's named-entity annotations, kept from a recording (the simulator infers none). */
  annotations: unknown[] | null;
  /** Folded search tokens of the whole text, hashtags and cashtags, computed once. */
  tokens: string[];
  hashtagKeys: Set<string>;
  cashtagKeys: Set<string>;
  metrics: PostMetrics;
  /** Named likers and retweeters, oldest first; anonymous engagement only moves the counts. */
  likerIds: string[];
  retweeterIds: string[];
}

export interface NewUser {
  username: string;
  name?: string;
  id?: string;
  createdAt?: number;
  description?: string;
  location?: string | null;
  verified?: boolean;
  protected?: boolean;
  followersCount?: number;
  withheld?: UserWithheld | null;
}

/** A post as an answer recorded from X holds it: its text carries its t.co links already and is not cut again. */
export interface RecordedContent {
  /** Raw (unescaped) `text`. */
  text: string;
  /** Raw whole text of a long post (`note_tweet.text`). */
  noteText?: string;
  /** The id the post had where it was recorded: links to its own pages (photo, i/web/status) get its new id. */
  recordedId?: string;
  links: PostLink[];
  media: PostMedia[];
  annotations?: unknown[];
  /** References to posts the recording does not hold: kept, so expansions report them missing as X does. */
  danglingReferences?: PostReference[];
  conversationId?: string;
  inReplyToUserId?: string;
  editControls?: { eligible?: boolean; editsRemaining?: number };
}

export interface NewPost {
  authorId: string;
  /** What the author wrote; every http(s) address in it becomes a t.co link. */
  text?: string;
  /** Expanded URLs added at the end of the text, each as a t.co link. */
  links?: string[];
  media?: NewMedia[];
  lang?: string;
  createdAt: number;
  visibleAt: number;
  replyTo?: string;
  retweetOf?: string;
  quoteOf?: string;
  metrics?: Partial<PostMetrics>;
  withheld?: PostWithheld | null;
  /** The version this post follows in an edit chain. */
  editOf?: string;
  /** A replayed post: its text and entities as recorded instead of `text`, `links` and `media`. */
  recorded?: RecordedContent;
}

/** What an edit may change; what it leaves out is kept from the version before. */
export interface PostEdit {
  text: string;
  links?: string[];
  media?: NewMedia[];
  lang?: string;
}

// X's edit rules (docs.x.com, Edit Posts): 30 minutes after the first version, up to 5 edits.
export const EDIT_WINDOW_MS = 30 * 60 * 1000;
export const MAX_EDITS = 5;

/** True for the newest version of its post: search and timelines show only these. */
export function isLatestVersion(post: SimPost): boolean {
  return post.edits.ids[post.edits.ids.length - 1] === post.id;
}

import type { NewFeedItem } from '@hashwatch/feed';
import { foldForMatch, passesFilters, type PostFacts, type SourceFilters } from '@hashwatch/post-filters';
import type { XPost } from '@hashwatch/x-api';
import { snowflakeFloor, snowflakeTime } from '../snowflake';
import { sourceKey, type Source } from '../sources/source';
import { postContent } from './post-content';

/** A track or account track of a served account, as matching needs it. */
export interface Subscription {
  /** `trk_...` or `acc_...`. */
  id: string;
  kind: 'hashtag' | 'account';
  sourceKey: string;
  userId: string;
  /** The hashtag or username as the account wrote it (no `#` / `@`). */
  label: string;
  /** Lower-cased label. */
  norm: string;
  lang: string | null;
  excludeRetweets: boolean;
  excludeReplies: boolean;
  /** The X user id of an account track, once resolved. */
  xUserId: string | null;
  trackEngagement: boolean;
  trackLikes: boolean;
  trackReposts: boolean;
  trackComments: boolean;
  createdAt: Date;
  /** The track's own filters (@hashwatch/post-filters); null for none. */
  filters: SourceFilters | null;
  /** Account tracks: posts mentioning the handle match too. */
  includeMentions: boolean;
}

/** One post for one account, with every subscription of that account it matched, earliest-created first. */
export interface Candidate {
  userId: string;
  post: XPost;
  /** X's created_at (whole seconds): the feed item's posted_at. */
  postedAt: Date;
  matches: Subscription[];
}

export interface MatchResult {
  /** Oldest post first, then by account id. */
  candidates: Candidate[];
  /** Per subscription id: publication time of the newest post it matched. */
  lastPostAt: Map<string, Date>;
  /**
   * Per source key: when each new post of the source was published (ms, `posted_at`), whatever the tracks'
   * own rules: the source's pace, which the silence detector learns.
   */
  sourcePosts: Map<string, number[]>;
}

/** The lowest id a post must exceed to be new for a source: its cursor, or its creation as a snowflake. */
export function sourceLowerBound(source: Pick<Source, 'sinceId' | 'notBefore'>): bigint {
  const fromTime = snowflakeFloor(source.notBefore.getTime()) - 1n;
  if (source.sinceId === null) return fromTime;
  const cursor = BigInt(source.sinceId);
  return cursor > fromTime ? cursor : fromTime;
}

/**
 * When a post was published, to the millisecond, for the "published after the source was created" rule only.
 * X's created_at is whole seconds; the snowflake id carries the millisecond, and a track created at .500 must
 * not lose a post published at .900 of the same second. created_at wins when the id is not a snowflake of that
 * second (very old posts have sequential ids). An edit was published when its first version was: an edit made
 * today of last week's post is not a new post.
 */
export function publishedMsOf(post: XPost): number {
  if (post.rootId !== post.id) return snowflakeTime(post.rootId);
  const fromId = snowflakeTime(post.id);
  if (post.createdAt === null) return fromId;
  const createdAt = Date.parse(post.createdAt);
  return fromId >= createdAt && fromId - createdAt < 1000 ? fromId : createdAt;
}

/**
 * `posted_at` as X publishes it: created_at, whole seconds. The id's millisecond never reaches a client, so
 * one post has the same posted_at whichever app stored it. Without created_at, the id's second stands in.
 */
export function postedAtOf(post: XPost): Date {
  // An edit's created_at is the edit's; the post was published with its first version.
  if (post.rootId !== post.id) return new Date(Math.floor(snowflakeTime(post.rootId) / 1000) * 1000);
  if (post.createdAt !== null) return new Date(post.createdAt);
  return new Date(Math.floor(snowflakeTime(post.id) / 1000) * 1000);
}

/** A link other than the one X adds to the post's own photo or video page. */
export function hasOwnLinks(post: Pick<XPost, 'urls'>): boolean {
  return post.urls.some((url) => url.mediaKey === null);
}

/** What a filter reads of a post, as it was when detected; a retweet shows its original's media. */
export function postFacts(post: XPost): PostFacts {
  let folded: string | undefined;
  return {
    text: post.text,
    // Folded on first use, once for every tracker with keywords.
    get folded() {
      return (folded ??= foldForMatch(post.text));
    },
    hasMedia: post.media.length > 0,
    hasLinks: hasOwnLinks(post),
    isQuote: post.isQuote,
    authorVerified: post.author?.verified ?? false,
    authorFollowers: post.author?.followersCount ?? null,
  };
}

function passes(subscription: Subscription, post: XPost, publishedMs: number, facts: () => PostFacts): boolean {
  // A new track or account only detects posts published after it was created.
  if (publishedMs < subscription.createdAt.getTime()) return false;
  if (subscription.kind === 'hashtag') {
    if (subscription.lang !== null && post.lang !== subscription.lang) return false;
    if (subscription.excludeRetweets && post.isRetweet) return false;
  } else if (subscription.excludeReplies && post.isReply) {
    return false;
  }
  return subscription.filters === null || passesFilters(subscription.filters, facts());
}

const byCreation = (a: Subscription, b: Subscription) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Matches the posts one query returned against the subscriptions of the sources it served:
 * a tag source is hit by a post whose hashtag or cashtag entities hold the tag (case-insensitive; a bare word
 * in the text is not an entity), an account source by a post of that author. A post at or below a source's
 * lower bound is old news for that source. Each subscription then applies its own rules and filters. Pure.
 */
export function matchPosts(posts: readonly XPost[], sources: readonly Source[], subscriptions: readonly Subscription[]): MatchResult {
  const bounds = new Map(sources.map((source) => [source.key, sourceLowerBound(source)]));
  const bySource = new Map<string, Subscription[]>();
  const userSourceByXId = new Map<string, string>();
  for (const subscription of subscriptions) {
    if (!bounds.has(subscription.sourceKey)) continue;
    const list = bySource.get(subscription.sourceKey) ?? [];
    list.push(subscription);
    bySource.set(subscription.sourceKey, list);
    if (subscription.kind === 'account' && subscription.xUserId) userSourceByXId.set(subscription.xUserId, subscription.sourceKey);
  }

  // One post per edit chain, its newest version: an edit is the post it edits.
  const newest = new Map<string, XPost>();
  for (const post of posts) {
    const held = newest.get(post.rootId);
    if (!held || BigInt(held.id) < BigInt(post.id)) newest.set(post.rootId, post);
  }
  const ordered = [...newest.values()].sort((a, b) => (BigInt(a.rootId) < BigInt(b.rootId) ? -1 : BigInt(a.rootId) > BigInt(b.rootId) ? 1 : 0));
  const candidates: Candidate[] = [];
  const lastPostAt = new Map<string, Date>();
  const sourcePosts = new Map<string, number[]>();

  for (const post of ordered) {
    const id = BigInt(post.id);
    const hitKeys = new Set<string>();
    for (const entity of [...post.hashtags, ...post.cashtags]) hitKeys.add(sourceKey('tag', entity.tag.toLowerCase()));
    if (post.author) hitKeys.add(sourceKey('user', post.author.username.toLowerCase()));
    else if (post.authorId && userSourceByXId.has(post.authorId)) hitKeys.add(userSourceByXId.get(post.authorId) as string);
    // A watched account's source is also hit by a post mentioning it (a retweet only echoes: never a mention).
    const mentionKeys = new Set<string>();
    if (!post.isRetweet) {
      for (const mention of post.mentions) {
        const key = mention.username ? sourceKey('user', mention.username.toLowerCase()) : null;
        if (key !== null && !hitKeys.has(key)) mentionKeys.add(key);
      }
    }

    const publishedMs = publishedMsOf(post);
    const postedAt = postedAtOf(post);
    let facts: PostFacts | undefined;
    const factsOf = () => (facts ??= postFacts(post));
    const perUser = new Map<string, Subscription[]>();
    for (const key of [...hitKeys, ...mentionKeys]) {
      const bound = bounds.get(key);
      if (bound === undefined || id <= bound) continue;
      const byMention = mentionKeys.has(key);
      // An edit is no new post of the source's pace, nor is a mention: the pace is the account's own.
      if (post.id === post.rootId && !byMention) {
        const times = sourcePosts.get(key);
        if (times) times.push(postedAt.getTime());
        else sourcePosts.set(key, [postedAt.getTime()]);
      }
      for (const subscription of bySource.get(key) ?? []) {
        if (byMention && !subscription.includeMentions) continue;
        if (!passes(subscription, post, publishedMs, factsOf)) continue;
        const list = perUser.get(subscription.userId) ?? [];
        list.push(subscription);
        perUser.set(subscription.userId, list);
        const last = lastPostAt.get(subscription.id);
        if (!last || last.getTime() < postedAt.getTime()) lastPostAt.set(subscription.id, postedAt);
      }
    }
    for (const userId of [...perUser.keys()].sort()) {
      candidates.push({ userId, post, postedAt, matches: (perUser.get(userId) as Subscription[]).sort(byCreation) });
    }
  }
  return { candidates, lastPostAt, sourcePosts };
}

/** A post's item key for an account: the edit chain's first id, so every version of a post is one item. */
export function postDedupeKey(post: Pick<XPost, 'rootId'>): string {
  return `x:${post.rootId}`;
}

/** `#btc` / `@alice`: how a subscription appears in a feed item's `sources`. */
export function sourceLabel(subscription: Pick<Subscription, 'kind' | 'norm'>): string {
  return subscription.kind === 'hashtag' ? `#${subscription.norm}` : `@${subscription.norm}`;
}

/** Every matched source of a candidate, prefixed and lower-case, earliest-created first, each once. */
export function candidateSources(candidate: Pick<Candidate, 'matches'>): string[] {
  return [...new Set(candidate.matches.map(sourceLabel))];
}

/**
 * The feed item of a candidate: `hashtag` / `account` from the earliest-created matching source, `sources`
 * listing all, engagement flags from the first matching source that tracks engagement.
 */
export function toFeedItem(candidate: Candidate): NewFeedItem {
  const { post } = candidate;
  const first = candidate.matches[0];
  if (!first) throw new Error(`candidate ${post.id} for ${candidate.userId} has no match`);
  const engaged = candidate.matches.find((match) => match.trackEngagement);
  const byAuthor = first.kind === 'account' && (post.author?.username.toLowerCase() === first.norm || (post.authorId !== null && post.authorId === first.xUserId));
  const handle = post.author?.username ?? null;
  const content = postContent(post);
  return {
    userId: candidate.userId,
    dedupeKey: postDedupeKey(post),
    type: first.kind,
    hashtag: first.kind === 'hashtag' ? first.label : null,
    account: first.kind === 'account' ? first.label : null,
    matchedBy: first.kind === 'account' ? (byAuthor ? 'author' : 'mention') : null,
    sources: candidateSources(candidate),
    xPostId: post.rootId,
    authorId: post.authorId,
    author: `@${handle ?? post.authorId ?? 'unknown'}`,
    authorName: post.author?.name ?? handle ?? '',
    text: post.text,
    url: content.url,
    lang: content.lang,
    urls: content.urls,
    media: content.media,
    quoted: content.quoted,
    edited: post.id !== post.rootId,
    postedAt: candidate.postedAt,
    engagementTracked: engaged !== undefined,
    trackLikes: engaged?.trackLikes ?? true,
    trackReposts: engaged?.trackReposts ?? true,
    trackComments: engaged?.trackComments ?? true,
  };
}

import type { EngagementKind } from '@hashwatch/db';

/** A category of engagement, named as feed items name it (`kind`): one sample endpoint and one budget each. */
export type SampleKind = EngagementKind;

/** Likes first: the scarcest endpoint (75 calls per 15 minutes, user token only). */
export const SAMPLE_KINDS: readonly SampleKind[] = ['like', 'retweet', 'reply'];

interface KindColumns {
  /** engagement_states / feed_items count column. */
  count: 'like_count' | 'retweet_count' | 'reply_count';
  /** engagement_states: the count when the category was last sampled (or its baseline). */
  sampled: 'sampled_likes' | 'sampled_retweets' | 'sampled_replies';
  /** engagement_states / feed_items capped list of handles. */
  list: 'likers' | 'retweeters' | 'repliers';
  /** The switch of the source (a column of the tracking items). */
  flag: 'likes' | 'reposts' | 'comments';
}

/** Where each category lives. Column names are constants, never input, so they can be spliced into SQL. */
export const KIND_COLUMNS = {
  like: { count: 'like_count', sampled: 'sampled_likes', list: 'likers', flag: 'likes' },
  retweet: { count: 'retweet_count', sampled: 'sampled_retweets', list: 'retweeters', flag: 'reposts' },
  reply: { count: 'reply_count', sampled: 'sampled_replies', list: 'repliers', flag: 'comments' },
} as const satisfies Record<SampleKind, KindColumns>;

/** Sample lists are capped, not exhaustive: at most 100 handles per category. */
export const SAMPLE_CAP = 100;

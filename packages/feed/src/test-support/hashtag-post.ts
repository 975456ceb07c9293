import type { NewFeedItem } from '../insert-feed-items';

/** A hashtag post numbered `n` (its X id) for `userId`; `extra` overrides any field. */
export function hashtagPost(userId: string, n: number | string, extra: Partial<NewFeedItem> = {}): NewFeedItem {
  return {
    userId,
    dedupeKey: `x:${n}`,
    type: 'hashtag',
    hashtag: 'btc',
    account: null,
    sources: ['#btc'],
    xPostId: String(n),
    authorId: `u${n}`,
    author: `author${n}`,
    authorName: `Author ${n}`,
    text: `post ${n} about #btc`,
    url: `https://x.com/author${n}/status/${n}`,
    postedAt: new Date('2026-11-22T01:00:00.123Z'),
    ...extra,
  };
}

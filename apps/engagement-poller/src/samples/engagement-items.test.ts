import { ENGAGEMENT_NOTES, engagementItem, type ParentItem } from './engagement-items';
import { mergeSample } from './sample-post';

const parent: ParentItem = {
  id: 'post_parent',
  userId: 'usr_1',
  xPostId: '1900000000000000001',
  url: 'https://x.com/alice/status/1900000000000000001',
  hashtag: 'btc',
  account: null,
  sources: ['#btc', '@alice'],
};
const bob = { id: '42', username: 'bob', name: 'Bob B', reply: null };

describe('engagementItem', () => {
  it('makes a like into a fixed note on the parent post, with no publication time', () => {
    expect(engagementItem('like', parent, bob)).toEqual({
      userId: 'usr_1',
      dedupeKey: 'e:1900000000000000001:like:42',
      type: 'engagement',
      hashtag: 'btc',
      account: null,
      sources: ['#btc', '@alice'],
      xPostId: '1900000000000000001',
      authorId: '42',
      author: '@bob',
      authorName: 'Bob B',
      text: ENGAGEMENT_NOTES.like,
      url: parent.url,
      postedAt: null,
      parentId: 'post_parent',
      kind: 'like',
    });
  });

  it('makes a retweet into the repost note', () => {
    expect(engagementItem('retweet', parent, bob)).toMatchObject({ text: 'reposted this post', dedupeKey: 'e:1900000000000000001:retweet:42', kind: 'retweet', postedAt: null });
  });

  it('makes a reply into its own text, time and link', () => {
    const postedAt = new Date('2026-11-22T10:00:00Z');
    const replier = { ...bob, reply: { id: '1900000000000000099', text: 'agreed', postedAt } };
    expect(engagementItem('reply', parent, replier)).toMatchObject({
      text: 'agreed',
      url: 'https://x.com/bob/status/1900000000000000099',
      postedAt,
      dedupeKey: 'e:1900000000000000001:reply:42',
    });
  });
});

describe('mergeSample', () => {
  it('puts the sample first, keeps older handles after it, once each whatever their case, up to 100', () => {
    expect(mergeSample(['@c', '@B'], ['@b', '@a'])).toEqual(['@c', '@B', '@a']);
    const older = Array.from({ length: 100 }, (_, i) => `@old${i}`);
    const merged = mergeSample(['@new'], older);
    expect(merged).toHaveLength(100);
    expect(merged[0]).toBe('@new');
    expect(merged.at(-1)).toBe('@old98');
  });
});

import { matchesQuery } from './query-matcher';
import { parseQuery } from './query-parser';
import { SimStore, type SimPost } from '../store/sim-store';

describe('matchesQuery', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  const store = new SimStore(() => now);
  const alice = store.createUser({ username: 'Alice', verified: true });
  const bob = store.createUser({ username: 'bob' });
  const post = (authorId: string, text: string, extra: { lang?: string; replyTo?: string; retweetOf?: string } = {}) =>
    store.createPost({ authorId, text: extra.retweetOf ? undefined : text, createdAt: now, visibleAt: now, ...extra });
  const root = post(alice.id, 'Bitcoin to the moon #BTC $TSLA #thankunext café');
  const reply = post(bob.id, '@Alice agreed #btc', { lang: 'es', replyTo: root.id });
  const retweet = post(bob.id, '', { retweetOf: root.id });

  const matches = (query: string, target: SimPost) =>
    matchesQuery(parseQuery(query, 512), target, {
      author: store.userById(target.authorId),
      repliedToUser: target.inReplyToUserId ? store.userById(target.inReplyToUserId) : undefined,
    });

  it('matches a hashtag exactly and case-insensitively, never a longer one', () => {
    expect(matches('#btc', root)).toBe(true);
    expect(matches('#BtC', reply)).toBe(true);
    expect(matches('#thanku', root)).toBe(false);
    expect(matches('#thankunext', root)).toBe(true);
  });

  it('matches a cashtag only against cashtag entities', () => {
    expect(matches('$tsla', root)).toBe(true);
    expect(matches('$btc', root)).toBe(false);
  });

  it('matches a bare word against text tokens, ignoring case and diacritics, hashtags included', () => {
    expect(matches('bitcoin', root)).toBe(true);
    expect(matches('cafe', root)).toBe(true);
    expect(matches('btc', root)).toBe(true);
    expect(matches('bit', root)).toBe(false);
    expect(matches('"to the moon"', root)).toBe(true);
    expect(matches('"the to moon"', root)).toBe(false);
  });

  it('matches from:, to:, @mention and conversation_id:', () => {
    expect(matches('from:alice', root)).toBe(true);
    expect(matches(`from:${alice.id}`, root)).toBe(true);
    expect(matches('from:bob', root)).toBe(false);
    expect(matches('to:alice', reply)).toBe(true);
    expect(matches('@alice', reply)).toBe(true);
    expect(matches(`conversation_id:${root.id}`, reply)).toBe(true);
    expect(matches(`conversation_id:${root.id}`, root)).toBe(true);
  });

  it('matches lang:, is:reply, is:retweet, is:verified and their negations', () => {
    expect(matches('#btc lang:es', reply)).toBe(true);
    expect(matches('#btc lang:en', reply)).toBe(false);
    expect(matches('#btc is:reply', reply)).toBe(true);
    expect(matches('#btc -is:reply', reply)).toBe(false);
    expect(matches('#btc is:retweet', retweet)).toBe(true);
    expect(matches('#btc -is:retweet', root)).toBe(true);
    expect(matches('#btc is:verified', root)).toBe(true);
  });

  it('matches has:media on an attached photo and has:links on a link or a photo page', () => {
    const photo = store.createPost({ authorId: bob.id, text: 'look #btc', media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/a.jpg' }], createdAt: now, visibleAt: now });
    const linked = store.createPost({ authorId: bob.id, text: 'read #btc', links: ['https://example.com/a'], createdAt: now, visibleAt: now });
    expect(matches('#btc has:media', photo)).toBe(true);
    expect(matches('#btc has:media', linked)).toBe(false);
    expect(matches('#btc has:media', root)).toBe(false);
    expect(matches('#btc has:links', linked)).toBe(true);
    expect(matches('#btc has:links', photo)).toBe(true);
    expect(matches('#btc has:links', root)).toBe(false);
    expect(matches('#btc -is:quote', root)).toBe(true);
    expect(matches('(#nope OR (#btc OR $btc) has:media)', photo)).toBe(true);
    expect(matches('(#nope OR (#btc OR $btc) has:media)', linked)).toBe(false);
  });

  it('applies AND before OR', () => {
    expect(matches('#nope OR #btc lang:es', reply)).toBe(true);
    expect(matches('#nope OR #btc lang:en', reply)).toBe(false);
    expect(matches('(#nope OR #btc) lang:es', reply)).toBe(true);
  });

  it('matches min_likes: against the current like count', () => {
    store.addLikes(root.id, [], 10);
    expect(matches('#btc min_likes:10', root)).toBe(true);
    expect(matches('#btc min_likes:11', root)).toBe(false);
  });
});

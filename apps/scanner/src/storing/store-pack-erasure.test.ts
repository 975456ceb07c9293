import { eraseAccount, eraseSource, SOURCE_LOCK_CLASS } from '@hashwatch/accounts';
import { transaction } from '@hashwatch/db';
import type { XPost } from '@hashwatch/x-api';
import { SCANNER_LOCK_CLASS } from '../sources/lock-keys';
import { STREAM_GAP_LOCK_CLASS } from '../stream/backfill';
import { STREAM_LOCK_CLASS } from '../stream/stream-holder';
import { sourceKey, type Source } from '../sources/source';
import { syncSources } from '../sources/sync-sources';
import { useScannerFixture } from '../test-support/scanner-fixture';
import { loadSubscriptions, storePack } from './store-pack';

let nextId = 1_990_000_000_000_100_000n;

/** A post X would return for `#tag`, published now. */
function postWithTag(tag: string): XPost {
  nextId += 1n;
  const text = `news #${tag}`;
  return {
    id: String(nextId), rootId: String(nextId), text, authorId: '7', author: { id: '7', username: 'poster', name: 'Poster', verified: false, followersCount: 10 }, createdAt: new Date().toISOString(),
    lang: 'en', conversationId: String(nextId), inReplyToUserId: null, referencedPosts: [], isRetweet: false, isReply: false, isQuote: false,
    hashtags: [{ start: 5, end: 6 + tag.length, tag }], cashtags: [], mentions: [], urls: [], media: [], quoted: null, metrics: null, editHistoryPostIds: [String(nextId)],
    withheldIn: [],
  };
}

// A scan loads a source's subscriptions when its query starts and stores when X has answered: a track deleted or
// an account erased in between must get nothing stored, and no x_posts row, once the deletion has answered.
describe('storing for a source deleted while its query ran: nothing is left of it once the deletion answered', () => {
  const fx = useScannerFixture();

  async function stale(tag: string) {
    const user = await fx.account();
    const trackId = await fx.track(user, tag, { createdAt: new Date(Date.now() - 60_000) });
    await syncSources(fx.pool());
    const source: Source = { key: sourceKey('tag', tag), kind: 'tag', name: tag, sinceId: null, notBefore: new Date(0), intervalSeconds: 60, failures: 0 };
    const subscriptions = await loadSubscriptions(fx.pool(), [source]);
    expect(subscriptions).toHaveLength(1);
    return { user, trackId, source, subscriptions };
  }

  async function storeAfter(scan: Awaited<ReturnType<typeof stale>>, tag: string) {
    const post = postWithTag(tag);
    const stored = await transaction(fx.pool(), (client) =>
      storePack(client, { sources: [scan.source], claimId: 1, posts: [post], postsRead: 1, requests: 1, subscriptions: scan.subscriptions, complete: { newestId: post.id } }),
    );
    const { rows: posts } = await fx.pool().query('SELECT id FROM x_posts WHERE id = $1', [post.id]);
    const { rows: cursors } = await fx.pool().query('SELECT 1 FROM source_cursors WHERE source_key = $1', [scan.source.key]);
    return { stored, posts, cursors };
  }

  it('stores nothing for a track deleted after its subscriptions were loaded', async () => {
    const scan = await stale('erasedtrack');
    expect(await eraseSource(fx.pool(), 'tracks', scan.user, scan.trackId)).toBe(true);
    const { stored, posts, cursors } = await storeAfter(scan, 'erasedtrack');
    expect(stored.inserted).toEqual([]);
    expect(await fx.items(scan.user)).toEqual([]);
    expect(posts).toEqual([]);
    expect(cursors).toEqual([]);
  });

  it('stores nothing, and records no post, for an account erased after its subscriptions were loaded', async () => {
    const scan = await stale('erasedaccount');
    expect(await eraseAccount(fx.pool(), scan.user)).not.toBeNull();
    const { stored, posts, cursors } = await storeAfter(scan, 'erasedaccount');
    expect(stored.inserted).toEqual([]);
    expect(posts).toEqual([]);
    expect(cursors).toEqual([]);
  });

  it('still stores for a live track', async () => {
    const scan = await stale('livetrack');
    const { stored, posts } = await storeAfter(scan, 'livetrack');
    expect(stored.inserted).toHaveLength(1);
    expect(posts).toHaveLength(1);
  });

  it('erasure locks its sources under a first key no other advisory lock uses', () => {
    expect(new Set([SOURCE_LOCK_CLASS, SCANNER_LOCK_CLASS, STREAM_LOCK_CLASS, STREAM_GAP_LOCK_CLASS]).size).toBe(4);
  });
});

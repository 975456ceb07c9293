import type { Subscription } from '../matching/match-posts';
import type { Source } from '../sources/source';
import { upstreamShares } from './upstream-shares';

const source = (kind: Source['kind'], name: string): Source => ({ key: `${kind}:${name}`, kind, name, sinceId: null, notBefore: new Date(0), intervalSeconds: 60, failures: 0 });
const subscription = (src: Source, userId: string, id: string): Subscription => ({
  id, kind: src.kind === 'tag' ? 'hashtag' : 'account', sourceKey: src.key, userId, label: src.name, norm: src.name, lang: null, excludeRetweets: true,
  excludeReplies: true, xUserId: null, trackEngagement: false, trackLikes: true, trackReposts: true, trackComments: true, createdAt: new Date(0), filters: null, includeMentions: false,
});
const millionths = (text: string) => Math.round(Number(text) * 1e6);

describe('upstreamShares', () => {
  const btc = source('tag', 'btc');
  const eth = source('tag', 'eth');
  const alice = source('user', 'alice');
  const quiet = source('tag', 'quiet');

  it('splits across the sources that served an account, then their accounts, every level adding up exactly', () => {
    // #btc watched by three accounts (one of them twice, in two languages), @alice by one, #eth by two; #quiet by none.
    const subscriptions = [
      subscription(btc, 'usr_a', 'trk_1'), subscription(btc, 'usr_a', 'trk_2'), subscription(btc, 'usr_b', 'trk_3'), subscription(btc, 'usr_c', 'trk_4'),
      subscription(alice, 'usr_a', 'acc_1'), subscription(eth, 'usr_b', 'trk_5'), subscription(eth, 'usr_c', 'trk_6'),
    ];
    const shares = upstreamShares([quiet, eth, btc, alice], subscriptions, { reads: 7, requests: 1 });
    expect(shares?.bySource).toEqual([
      { userId: 'usr_a', source: '#btc', reads: '0.777778', requests: '0.111112' },
      { userId: 'usr_b', source: '#btc', reads: '0.777778', requests: '0.111111' },
      { userId: 'usr_c', source: '#btc', reads: '0.777778', requests: '0.111111' },
      { userId: 'usr_b', source: '#eth', reads: '1.166667', requests: '0.166667' },
      { userId: 'usr_c', source: '#eth', reads: '1.166666', requests: '0.166666' },
      { userId: 'usr_a', source: '@alice', reads: '2.333333', requests: '0.333333' },
    ]);
    const total = (key: 'reads' | 'requests') => (shares?.bySource ?? []).reduce((sum, share) => sum + millionths(share[key]), 0);
    expect([total('reads'), total('requests')]).toEqual([7_000_000, 1_000_000]);
    expect(shares?.readsByAccount).toEqual(new Map([['usr_a', '3.111111'], ['usr_b', '1.944445'], ['usr_c', '1.944444']]));
  });

  it('answers null when X served nothing or no source served an account, and meters an empty answer\'s request', () => {
    const subscriptions = [subscription(btc, 'usr_a', 'trk_1')];
    expect(upstreamShares([btc], subscriptions, { reads: 0, requests: 0 })).toBeNull();
    expect(upstreamShares([quiet], subscriptions, { reads: 3, requests: 1 })).toBeNull();
    expect(upstreamShares([btc], subscriptions, { reads: 0, requests: 1 })?.bySource).toEqual([{ userId: 'usr_a', source: '#btc', reads: '0.000000', requests: '1.000000' }]);
  });
});

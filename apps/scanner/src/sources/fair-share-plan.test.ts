import { MAX_STRETCH, planFairShares, type ShareAccount } from './fair-share-plan';

// A hashtag of 95 letters: `#` + 95 + ` OR ` is 100 characters of a 512-character query, so five share one query.
const longTag = (i: number) => `tag:${String(i).padStart(3, '0')}${'x'.repeat(92)}`;

function account(id: string, sources: string[], options: Partial<ShareAccount> = {}): ShareAccount {
  return { id, planId: 'business', intervalSeconds: 10, sources, ...options };
}

describe('planFairShares', () => {
  it('stretches nobody while the demands fit the budget', () => {
    const shares = planFairShares([account('a', ['tag:btc']), account('b', ['tag:eth'])], 1, 512);
    expect([...shares.values()].map((share) => share.stretch)).toEqual([1, 1]);
  });

  it('splits one packed query between the sources in it, and a shared source between its trackers', () => {
    const shares = planFairShares([account('a', ['tag:btc', 'tag:eth']), account('b', ['tag:eth'])], 10, 512);
    // One query every 10 s serves both tags: btc costs a half, eth a half split between a and b.
    expect(shares.get('a')?.demand).toBeCloseTo(0.075);
    expect(shares.get('b')?.demand).toBeCloseTo(0.025);
  });

  it('weighs a source by its whole clause: filter operators and mentions make it cost more of its query', () => {
    // Five long tags fill one query; with has:media and -is:quote on each, four do.
    const tags = Array.from({ length: 5 }, (_, i) => longTag(i));
    const plain = planFairShares([account('a', tags)], 10, 512);
    const narrowed = planFairShares([account('a', tags)], 10, 512, new Map(tags.map((key) => [key, { operators: ['has:media', '-is:quote'] }])));
    expect(plain.get('a')?.demand).toBeCloseTo(0.1);
    expect(narrowed.get('a')?.demand).toBeCloseTo(0.2);
    const mentions = planFairShares([account('b', ['user:alice'])], 10, 16, new Map([['user:alice', { mentions: true }]]));
    // `from:alice OR @alice` does not fit a 16-character query: never searched, it costs nothing.
    expect(mentions.get('b')?.demand).toBe(0);
  });

  it('keeps the modest account at its cadence and slows the flooding one to what is left', () => {
    const flooder = account('flood', Array.from({ length: 40 }, (_, i) => longTag(i)));
    const modest = account('modest', ['tag:btc']);
    const budget = 300 / 900;
    const shares = planFairShares([flooder, modest], budget, 512);
    expect(shares.get('modest')).toMatchObject({ stretch: 1, demand: 0.1, share: 0.1 });
    const flood = shares.get('flood');
    // 40 long tags pack 5 to a query: 8 searches per 10 s. What is left is 0.2333/s: 0.8/0.2333 = 3.4, so ×4.
    expect(flood?.demand).toBeCloseTo(0.8);
    expect(flood?.share).toBeCloseTo(budget - 0.1);
    expect(flood?.stretch).toBe(4);
    // Stretched, the two together spend within the budget.
    expect(0.1 + (flood?.demand ?? 0) / (flood?.stretch ?? 1)).toBeLessThanOrEqual(budget);
  });

  it('weighs the shares by plan when everyone asks for more than the budget', () => {
    const tags = (prefix: string) => Array.from({ length: 20 }, (_, i) => longTag(i).replace('tag:', `tag:${prefix}`));
    const shares = planFairShares([account('starter', tags('s'), { planId: 'starter' }), account('business', tags('b'))], 0.2, 512);
    // Both ask for 0.4/s; business weighs 4, starter 1: 0.16 and 0.04.
    expect(shares.get('business')?.share).toBeCloseTo(0.16);
    expect(shares.get('starter')?.share).toBeCloseTo(0.04);
    expect(shares.get('business')?.stretch).toBe(4);
    expect(shares.get('starter')?.stretch).toBe(16);
  });

  it('gives an unknown plan the weight of one, and never stretches past the cap', () => {
    const shares = planFairShares([account('x', Array.from({ length: 40 }, (_, i) => longTag(i)), { planId: 'custom' })], 0.0001, 512);
    expect(shares.get('x')?.stretch).toBe(MAX_STRETCH);
  });

  it('costs nothing for a source no query can hold', () => {
    const shares = planFairShares([account('a', [`tag:${'y'.repeat(600)}`])], 0.001, 512);
    expect(shares.get('a')).toMatchObject({ demand: 0, stretch: 1 });
  });
});

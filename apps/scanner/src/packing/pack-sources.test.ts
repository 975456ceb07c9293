// The simulator's query parser stands in for X's: the packed queries must be accepted as they are.
import { parseQuery } from '@hashwatch/x-simulator';
import type { Source } from '../sources/source';
import { buildQuery, packSources, queryLength, sourceClause, sourceTerms, sourceWeight } from './pack-sources';

function source(kind: Source['kind'], name: string, intervalSeconds = 10): Source {
  return { key: `${kind}:${name}`, kind, name, sinceId: null, notBefore: new Date(0), intervalSeconds, failures: 0 };
}

describe('packSources', () => {
  it('asks for the cashtag form only of tags that can be cashtags', () => {
    expect(sourceTerms(source('tag', 'btc'))).toEqual(['#btc', '$btc']);
    expect(sourceTerms(source('tag', 'brk_b'))).toEqual(['#brk_b', '$brk_b']);
    expect(sourceTerms(source('tag', 'bitcoin'))).toEqual(['#bitcoin']);
    expect(sourceTerms(source('tag', 'web3'))).toEqual(['#web3']);
    expect(sourceTerms(source('tag', 'café'))).toEqual(['#café']);
    expect(sourceTerms(source('user', 'alice'))).toEqual(['from:alice']);
    expect(sourceTerms({ ...source('user', 'alice'), mentions: true })).toEqual(['from:alice', '@alice']);
    expect(sourceClause({ ...source('user', 'alice'), mentions: true, operators: ['has:media'] })).toBe('(from:alice OR @alice) has:media');
  });

  it('predicts the exact length of a packed query, parentheses and spaces included', () => {
    const sources = [source('tag', 'btc'), source('tag', 'ethereum'), source('user', 'alice'), source('tag', '日本')];
    const query = buildQuery(sources.flatMap(sourceTerms));
    expect(query).toBe('(#btc OR $btc OR #ethereum OR from:alice OR #日本)');
    expect(queryLength(query)).toBe(sources.reduce((sum, s) => sum + sourceWeight(s), 0) - 2);
  });

  it('binds a source\'s operators to its own terms, and predicts the length with them', () => {
    const narrowed = (name: string, kind: Source['kind'], operators: string[]) => ({ ...source(kind, name), operators });
    const sources = [narrowed('btc', 'tag', ['has:media', '-is:quote']), narrowed('ethereum', 'tag', ['is:verified']), narrowed('alice', 'user', ['has:links']), source('tag', 'sol')];
    expect(sources.map(sourceClause)).toEqual(['(#btc OR $btc) has:media -is:quote', '#ethereum is:verified', 'from:alice has:links', '#sol OR $sol']);
    const query = buildQuery(sources.map(sourceClause));
    expect(query).toBe('((#btc OR $btc) has:media -is:quote OR #ethereum is:verified OR from:alice has:links OR #sol OR $sol)');
    expect(queryLength(query)).toBe(sources.reduce((sum, s) => sum + sourceWeight(s), 0) - 2);
    expect(() => parseQuery(query, 512)).not.toThrow();
    const packed = packSources(Array.from({ length: 60 }, (_, i) => narrowed(`tag${i}x`, 'tag', ['has:media'])), 512);
    for (const pack of packed.packs) {
      expect(queryLength(pack.query)).toBeLessThanOrEqual(512);
      expect(() => parseQuery(pack.query, 512)).not.toThrow();
    }
  });

  it('fills queries up to exactly the limit and never past it, and X accepts every one', () => {
    // Weights 14 ("#abcd OR $abcd" + 4 each side): 512 + 2 = 514 holds 36 of them with 10 to spare.
    const tags = Array.from({ length: 100 }, (_, i) => source('tag', `t${String(i).padStart(3, '0')}x`));
    const users = Array.from({ length: 40 }, (_, i) => source('user', `user_${i}`));
    const { packs, unpackable } = packSources([...tags, ...users], 512);
    expect(unpackable).toEqual([]);
    for (const pack of packs) {
      expect(queryLength(pack.query)).toBeLessThanOrEqual(512);
      expect(() => parseQuery(pack.query, 512)).not.toThrow();
    }
    const served = packs.flatMap((pack) => pack.sources.map((s) => s.key)).sort();
    expect(served).toEqual([...tags, ...users].map((s) => s.key).sort());
    const totalWeight = [...tags, ...users].reduce((sum, s) => sum + sourceWeight(s), 0);
    expect(packs.length).toBe(Math.ceil(totalWeight / 514));
  });

  it('uses a query of exactly 512 characters when the terms fill it', () => {
    // 13 weights of 37 (a 32-character tag: no cashtag form) plus one of 33 (28 characters): 514.
    const sources = [...Array.from({ length: 13 }, (_, i) => source('tag', `${'x'.repeat(30)}${String(i).padStart(2, '0')}`)), source('tag', 'y'.repeat(28))];
    expect(sources.reduce((sum, s) => sum + sourceWeight(s), 0)).toBe(514);
    const { packs } = packSources(sources, 512);
    expect(packs).toHaveLength(1);
    expect(queryLength(packs[0]?.query ?? '')).toBe(512);
    expect(() => parseQuery(packs[0]?.query ?? '', 512)).not.toThrow();
    expect(() => parseQuery(`${packs[0]?.query} `, 512)).toThrow();
  });

  it('keeps each cadence in its own packs, so packs stay stable from cycle to cycle', () => {
    const fast = [source('tag', 'aa', 10), source('tag', 'bb', 10)];
    const slow = [source('tag', 'cc', 60)];
    const { packs } = packSources([slow[0] as Source, ...fast], 512);
    expect(packs.map((pack) => pack.sources.map((s) => s.name))).toEqual([['aa', 'bb'], ['cc']]);
    expect(packSources([...fast].reverse(), 512).packs[0]?.query).toBe(packs[0]?.query);
  });

  it('sets aside a source whose terms alone exceed the limit', () => {
    const long = source('tag', 'x'.repeat(100));
    const { packs, unpackable } = packSources([long, source('tag', 'ok')], 64);
    expect(unpackable).toEqual([long]);
    expect(packs).toHaveLength(1);
  });
});

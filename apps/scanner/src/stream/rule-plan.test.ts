import type { Source } from '../sources/source';
import { planRules, ruleSources, ruleTag, type ExistingRule } from './rule-plan';

const source = (key: string, intervalSeconds = 60): Source => {
  const [kind, name] = key.split(':') as ['tag' | 'user', string];
  return { key, kind, name, sinceId: null, notBefore: new Date(0), intervalSeconds, failures: 0 };
};
const ours = (id: string, value: string): ExistingRule => ({ id, value, tag: ruleTag(value) });

describe('stream rule planning', () => {
  it('reads the sources back from a rule value', () => {
    expect(ruleSources('(#btc OR $btc OR #ethereum OR from:alice_1)').sort()).toEqual(['tag:btc', 'tag:ethereum', 'user:alice_1']);
  });

  it('packs every wanted source into rules of at most the rule length, each tagged by its value', () => {
    const wanted = Array.from({ length: 300 }, (_, i) => source(`tag:topic${i}`));
    const plan = planRules([], wanted, { maxRules: 1000, maxLength: 1024 });
    const added = [...plan.addFirst, ...plan.addAfter];
    expect(plan.uncovered).toEqual([]);
    expect(added.every((rule) => [...rule.value].length <= 1024 && rule.tag === ruleTag(rule.value))).toBe(true);
    expect(new Set(added.flatMap((rule) => ruleSources(rule.value)))).toEqual(new Set(wanted.map((s) => s.key)));
    expect(added.length).toBeLessThan(20);
  });

  it('keeps rules whose sources are mostly still wanted, and adds a rule only for new sources', () => {
    const existing = [ours('1', '(#a OR #b OR #c)'), ours('2', '(#d OR #e)')];
    const plan = planRules(existing, ['tag:a', 'tag:b', 'tag:d', 'tag:e', 'tag:f'].map((k) => source(k)), { maxRules: 1000, maxLength: 1024 });
    expect(plan.delete).toEqual([]);
    expect(plan.addFirst.map((rule) => rule.value)).toEqual(['(#f OR $f)']);
  });

  it('drops a rule once fewer than half of its sources are wanted and re-packs the rest', () => {
    const existing = [ours('1', '(#a OR #b OR #c)')];
    const plan = planRules(existing, [source('tag:a')], { maxRules: 1000, maxLength: 1024 });
    expect(plan.delete).toEqual(['1']);
    expect(plan.addFirst.map((rule) => rule.value)).toEqual(['(#a OR $a)']);
  });

  it('leaves rules of the app that are not ours alone, and counts them against the cap', () => {
    const foreign: ExistingRule = { id: '9', value: 'cats', tag: 'someone else' };
    const plan = planRules([foreign], [source('tag:a'), source('tag:bb', 10)], { maxRules: 2, maxLength: 16 });
    expect(plan.delete).toEqual([]);
    // One rule fits beside the foreign one: the faster cadence gets it.
    expect(plan.addFirst.map((rule) => rule.value)).toEqual(['(#bb OR $bb)']);
    expect(plan.uncovered).toEqual(['tag:a']);
  });

  it('at the cap, adds what has room first and the rest after the deletes', () => {
    const existing = [ours('1', '(#x OR #y OR #z)'), ours('2', '(#q)')];
    const plan = planRules(existing, [source('tag:q'), source('tag:na'), source('tag:nb')], { maxRules: 3, maxLength: 14 });
    expect(plan.delete).toEqual(['1']);
    expect(plan.addFirst).toHaveLength(1);
    expect(plan.addAfter).toHaveLength(1);
    expect(plan.uncovered).toEqual([]);
  });

  it('leaves sources whose terms exceed a rule to search', () => {
    const plan = planRules([], [source('tag:averyveryverylongtag')], { maxRules: 10, maxLength: 10 });
    expect(plan.uncovered).toEqual(['tag:averyveryverylongtag']);
    expect(plan.addFirst).toEqual([]);
  });
});

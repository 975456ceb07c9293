import { createHash } from 'node:crypto';
import { packSources } from '../packing/pack-sources';
import { sourceKey, type Source } from '../sources/source';

/** Every rule Hashwatch writes carries a tag starting with this; rules of the X app without it are left alone. */
export const RULE_TAG_PREFIX = 'hw:';

/** A rule as X lists it. */
export interface ExistingRule {
  id: string;
  value: string;
  tag?: string | undefined;
}

/** What the sync changes on X, in this order: add what fits, delete, add the rest (the rule cap permitting). */
export interface RulePlan {
  /** Rules to add before any delete (room under the cap). */
  addFirst: { value: string; tag: string }[];
  /** Ids of our rules to delete: none of their sources are wanted, or too few to keep the rule. */
  delete: string[];
  /** Rules to add once the deletes made room; their sources are uncovered between the delete and the add. */
  addAfter: { value: string; tag: string }[];
  /** Wanted sources no rule will cover (the rule cap, or terms longer than a rule): they stay searched. */
  uncovered: string[];
}

export interface RuleLimits {
  /** Rules the X app may hold (pay-per-use: 1,000). */
  maxRules: number;
  /** Characters per rule (pay-per-use: 1,024). */
  maxLength: number;
}

/** The tag of a rule we write: derived from its value, so every replica names the same rule the same way. */
export function ruleTag(value: string): string {
  return `${RULE_TAG_PREFIX}${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
}

/** The sources a rule of ours serves, read back from its value: `#t` and `$t` are `tag:t`, `from:u` is `user:u`. */
export function ruleSources(value: string): string[] {
  const keys = new Set<string>();
  for (const match of value.matchAll(/(?:^|[\s(])(#|\$|from:)([^\s()]+)/g)) {
    const [, sigil, name] = match as unknown as [string, string, string];
    keys.add(sourceKey(sigil === 'from:' ? 'user' : 'tag', name.toLowerCase()));
  }
  return [...keys];
}

export const isOurRule = (rule: ExistingRule) => rule.tag?.startsWith(RULE_TAG_PREFIX) === true;

/**
 * Plans the rules for the wanted sources (fastest cadence first: under the cap, they are the ones streamed). Rules
 * are kept as they are while at least half of their sources are still wanted, so adding or removing a source
 * rewrites one rule at most, not the packing of every rule: X counts rule writes (100 per 15 minutes) and a rule
 * replaced is a moment its sources are not matched. Sources no kept rule serves are packed into new rules, which
 * are added before anything is deleted while the cap leaves room.
 */
export function planRules(existing: readonly ExistingRule[], wanted: readonly Source[], limits: RuleLimits): RulePlan {
  const wantedKeys = new Set(wanted.map((source) => source.key));
  const ours = existing.filter(isOurRule);
  const foreign = existing.length - ours.length;
  const kept: ExistingRule[] = [];
  const dropped: string[] = [];
  for (const rule of ours) {
    const keys = ruleSources(rule.value);
    const stillWanted = keys.filter((key) => wantedKeys.has(key)).length;
    if (stillWanted > 0 && stillWanted * 2 >= keys.length) kept.push(rule);
    else dropped.push(rule.id);
  }
  const covered = new Set(kept.flatMap((rule) => ruleSources(rule.value)));
  const { packs, unpackable } = packSources(wanted.filter((source) => !covered.has(source.key)), limits.maxLength);
  // packSources emits the fastest cadence's packs first: under the cap, they win.
  const room = Math.max(0, limits.maxRules - foreign - kept.length);
  const adding = packs.slice(0, room).map((pack) => ({ value: pack.query, tag: ruleTag(pack.query) }));
  const firstRoom = Math.max(0, limits.maxRules - existing.length);
  const uncovered = [
    ...unpackable.map((source) => source.key),
    ...packs.slice(room).flatMap((pack) => pack.sources.map((source) => source.key)),
  ];
  return { addFirst: adding.slice(0, firstRoom), delete: dropped, addAfter: adding.slice(firstRoom), uncovered };
}

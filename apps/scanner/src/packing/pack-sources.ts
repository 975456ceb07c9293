import type { Source } from '../sources/source';

/** One recent-search query serving several sources. */
export interface Pack<S extends Source = Source> {
  sources: S[];
  /** `(#a OR $a OR (#b OR $b) has:media OR from:c)`, never longer than the limit it was packed for (in code points). */
  query: string;
}

export interface PackResult<S extends Source> {
  packs: Pack<S>[];
  /** Sources whose own terms exceed the query limit: no query can serve them. */
  unpackable: S[];
}

// twitter-text's cashtag: 1-6 letters with an optional `_`/`.` suffix of 1-2 letters. A tag that cannot be a
// cashtag costs query characters for nothing, so its `$` form is left out. Tags hold no `.` (letters, digits, _).
const CASHTAG_SHAPE = /^[a-z]{1,6}(?:_[a-z]{1,2})?$/i;
const OR = ' OR ';

/**
 * The search terms that find a source's posts: `#tag` and, when the tag can be one, `$tag`; `from:handle`, and
 * `@handle` when a tracker of the handle asks for its mentions.
 */
export function sourceTerms(source: Pick<Source, 'kind' | 'name' | 'mentions'>): string[] {
  if (source.kind === 'user') return source.mentions ? [`from:${source.name}`, `@${source.name}`] : [`from:${source.name}`];
  return CASHTAG_SHAPE.test(source.name) ? [`#${source.name}`, `$${source.name}`] : [`#${source.name}`];
}

/**
 * What a query holds for one source: its terms, and the operators that narrow it after them, grouped so they bind to
 * this source alone: `#gold`, `(#gold OR $gold) has:media`, `from:alice -is:quote`.
 */
export function sourceClause(source: Pick<Source, 'kind' | 'name' | 'operators' | 'mentions'>): string {
  const terms = sourceTerms(source);
  const operators = source.operators ?? [];
  if (operators.length === 0) return terms.join(OR);
  const subject = terms.length === 1 ? (terms[0] as string) : `(${terms.join(OR)})`;
  return `${subject} ${operators.join(' ')}`;
}

/** X counts a query's length in characters (code points), parentheses, spaces and operators included. */
export function queryLength(query: string): number {
  return [...query].length;
}

export function buildQuery(terms: readonly string[]): string {
  return `(${terms.join(OR)})`;
}

/**
 * What a source adds to a packed query: its clause plus one ` OR `. A query of sources with weights w_i is `(` +
 * clauses joined by ` OR ` + `)`, so its length is sum(w_i) - 4 + 2: a pack fits the limit L exactly when
 * sum(w_i) <= L + 2.
 */
export function sourceWeight(source: Pick<Source, 'kind' | 'name' | 'operators' | 'mentions'>): number {
  return queryLength(sourceClause(source)) + OR.length;
}

/**
 * Packs sources into as few queries of at most `maxLength` characters as first-fit decreasing finds (within
 * 11/9 of the optimum plus one, and closer for the small items hashtags are). Sources are grouped by cadence
 * first, so the packs of a cadence stay the same from cycle to cycle and their sources keep moving cursors
 * together (a pack reads from its oldest cursor). Deterministic for a given set of sources.
 */
export function packSources<S extends Source>(sources: readonly S[], maxLength: number): PackResult<S> {
  const capacity = maxLength + 2;
  const byInterval = new Map<number, { source: S; weight: number }[]>();
  const unpackable: S[] = [];
  for (const source of sources) {
    const weight = sourceWeight(source);
    if (weight > capacity) {
      unpackable.push(source);
      continue;
    }
    const group = byInterval.get(source.intervalSeconds) ?? [];
    group.push({ source, weight });
    byInterval.set(source.intervalSeconds, group);
  }

  const packs: Pack<S>[] = [];
  for (const interval of [...byInterval.keys()].sort((a, b) => a - b)) {
    const items = (byInterval.get(interval) ?? []).sort((a, b) => b.weight - a.weight || (a.source.key < b.source.key ? -1 : 1));
    const bins: { sources: S[]; used: number }[] = [];
    for (const item of items) {
      const bin = bins.find((candidate) => candidate.used + item.weight <= capacity);
      if (bin) {
        bin.sources.push(item.source);
        bin.used += item.weight;
      } else {
        bins.push({ sources: [item.source], used: item.weight });
      }
    }
    for (const bin of bins) packs.push({ sources: bin.sources, query: buildQuery(bin.sources.map(sourceClause)) });
  }
  return { packs, unpackable };
}

import { QuerySyntaxError } from './query-ast';

export type QueryToken =
  | { kind: 'lparen'; negated: boolean; at: number }
  | { kind: 'rparen'; at: number }
  | { kind: 'or'; at: number }
  | { kind: 'word'; text: string; quoted: boolean; negated: boolean; at: number };

const SPACE = /\s/u;

/** Splits a query into parentheses, `OR`, and words or "quoted phrases", each possibly negated by `-`. */
export function lexQuery(query: string): QueryToken[] {
  const tokens: QueryToken[] = [];
  let i = 0;
  while (i < query.length) {
    const ch = query[i]!;
    if (SPACE.test(ch)) {
      i += 1;
      continue;
    }
    const at = i;
    let negated = false;
    if (ch === '-') {
      const next = query[i + 1];
      if (next === undefined || SPACE.test(next) || next === ')' || next === '-') {
        throw new QuerySyntaxError(`There were errors processing your request: a negation must be followed by an operator (at position ${at + 1})`);
      }
      negated = true;
      i += 1;
    }
    const c = query[i]!;
    if (c === '(') {
      tokens.push({ kind: 'lparen', negated, at });
      i += 1;
    } else if (c === ')') {
      tokens.push({ kind: 'rparen', at });
      i += 1;
    } else if (c === '"') {
      const close = query.indexOf('"', i + 1);
      if (close < 0) throw new QuerySyntaxError(`There were errors processing your request: unterminated quote (at position ${i + 1})`);
      tokens.push({ kind: 'word', text: query.slice(i + 1, close), quoted: true, negated, at });
      i = close + 1;
    } else {
      let end = i;
      while (end < query.length && !SPACE.test(query[end]!) && query[end] !== '(' && query[end] !== ')') end += 1;
      const text = query.slice(i, end);
      if (text === 'OR' && !negated) tokens.push({ kind: 'or', at });
      else tokens.push({ kind: 'word', text, quoted: false, negated, at });
      i = end;
    }
  }
  return tokens;
}

import { QuerySyntaxError, type QueryNode, type QueryTerm } from './query-ast';
import { lexQuery, type QueryToken } from './query-lexer';
import { foldText, searchTokens } from '../store/text-tokens';

const PREFIX = 'There were errors processing your request: ';

function fail(message: string, at: number): never {
  throw new QuerySyntaxError(`${PREFIX}${message} (at position ${at + 1})`);
}

// Operator names X rejects with a pointer to the right one.
const RENAMED: Record<string, string> = { min_faves: 'min_likes', min_retweets: 'min_reposts' };

function parseTerm(token: Extract<QueryToken, { kind: 'word' }>): QueryTerm {
  const { text, at } = token;
  if (token.quoted) {
    const tokens = searchTokens(text);
    if (tokens.length === 0) fail('empty phrase', at);
    return { type: 'phrase', tokens };
  }
  const sigil = text[0];
  const body = text.slice(1);
  if (sigil === '#') {
    if (!/^[\p{L}\p{M}\p{N}_]+$/u.test(body)) fail(`invalid hashtag '${text}'`, at);
    return { type: 'hashtag', tag: foldText(body) };
  }
  if (sigil === '$') {
    if (!/^[\p{L}][\p{L}\p{N}._]*$/u.test(body)) fail(`invalid cashtag '${text}'`, at);
    return { type: 'cashtag', tag: foldText(body) };
  }
  if (sigil === '@') {
    if (!/^[A-Za-z0-9_]{1,15}$/.test(body)) fail(`invalid mention '${text}'`, at);
    return { type: 'mention', username: body.toLowerCase() };
  }
  const operator = /^([A-Za-z_]+):(.*)$/s.exec(text);
  // "https://..." is a keyword, not an operator named https.
  if (operator && !operator[2]!.startsWith('//')) return parseOperator(operator[1]!.toLowerCase(), operator[2]!, at);
  const tokens = searchTokens(text);
  if (tokens.length === 0) fail(`invalid keyword '${text}'`, at);
  return { type: 'keyword', tokens };
}

function parseOperator(name: string, value: string, at: number): QueryTerm {
  if (value === '') fail(`operator '${name}' needs a value`, at);
  const renamed = RENAMED[name];
  if (renamed) fail(`Reference to invalid operator '${name}'. Use '${renamed}' instead`, at);
  switch (name) {
    case 'from':
    case 'to':
      if (!/^(@?[A-Za-z0-9_]{1,15}|[0-9]{1,19})$/.test(value)) fail(`invalid username or user id '${value}' for operator '${name}'`, at);
      return { type: name, user: value.replace(/^@/, '').toLowerCase() };
    case 'conversation_id':
      if (!/^[0-9]{1,19}$/.test(value)) fail(`invalid post id '${value}' for operator 'conversation_id'`, at);
      return { type: 'conversation_id', id: value };
    case 'lang':
      if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]+)?$/.test(value)) fail(`invalid language '${value}' for operator 'lang'`, at);
      return { type: 'lang', lang: value.toLowerCase() };
    case 'is': {
      const what = value.toLowerCase();
      if (what !== 'retweet' && what !== 'reply' && what !== 'quote' && what !== 'verified') fail(`Reference to invalid operator 'is:${value}'`, at);
      return { type: 'is', what };
    }
    case 'has': {
      const what = value.toLowerCase();
      if (what !== 'hashtags' && what !== 'cashtags' && what !== 'mentions' && what !== 'media' && what !== 'links') fail(`Reference to invalid operator 'has:${value}'`, at);
      return { type: 'has', what };
    }
    case 'min_likes':
    case 'min_replies':
    case 'min_reposts':
      if (!/^[0-9]{1,9}$/.test(value)) fail(`operator '${name}' needs a whole number`, at);
      return { type: 'min', metric: name.slice(4) as 'likes' | 'replies' | 'reposts', value: Number(value) };
    default:
      return fail(`Reference to invalid operator '${name}'`, at);
  }
}

/** Operators X accepts only beside a standalone one ("conjunction-required"). */
function isStandalone(term: QueryTerm): boolean {
  return term.type !== 'lang' && term.type !== 'is' && term.type !== 'has';
}

/** True when every way the node can match requires at least one positive standalone operator. */
function anchored(node: QueryNode): boolean {
  switch (node.kind) {
    case 'term':
      return isStandalone(node.term);
    case 'not':
      return false;
    case 'and':
      return node.children.some(anchored);
    case 'or':
      return node.children.every(anchored);
  }
}

class Parser {
  private index = 0;

  constructor(private readonly tokens: QueryToken[]) {}

  parse(): QueryNode {
    if (this.tokens.length === 0) fail('the query is empty', 0);
    const node = this.parseOr();
    const rest = this.tokens[this.index];
    if (rest) fail(rest.kind === 'rparen' ? 'unbalanced parenthesis' : 'unexpected token', rest.at);
    return node;
  }

  private parseOr(): QueryNode {
    const children = [this.parseAnd()];
    while (this.tokens[this.index]?.kind === 'or') {
      this.index += 1;
      children.push(this.parseAnd());
    }
    return children.length === 1 ? children[0]! : { kind: 'or', children };
  }

  // Whitespace is AND and binds tighter than OR: `a OR b c` is `a OR (b c)`.
  private parseAnd(): QueryNode {
    const children: QueryNode[] = [];
    for (;;) {
      const token = this.tokens[this.index];
      if (!token || token.kind === 'or' || token.kind === 'rparen') break;
      children.push(this.parseUnary());
    }
    if (children.length === 0) {
      const token = this.tokens[this.index];
      if (!token) fail('unexpected end of the query', this.tokens[this.tokens.length - 1]?.at ?? 0);
      fail(token.kind === 'or' ? "'OR' needs an operand on each side" : 'empty group', token.at);
    }
    return children.length === 1 ? children[0]! : { kind: 'and', children };
  }

  private parseUnary(): QueryNode {
    const token = this.tokens[this.index]!;
    this.index += 1;
    if (token.kind === 'lparen') {
      // X's docs: negate each operator, never a parenthesised group. The simulator refuses it so we never rely on it.
      if (token.negated) fail('negating a group is not supported; negate each operator instead', token.at);
      const inner = this.parseOr();
      const close = this.tokens[this.index];
      if (close?.kind !== 'rparen') fail('unbalanced parenthesis', token.at);
      this.index += 1;
      return inner;
    }
    if (token.kind !== 'word') return fail('unexpected token', token.at);
    const term: QueryNode = { kind: 'term', term: parseTerm(token) };
    return token.negated ? { kind: 'not', child: term } : term;
  }
}

/** Parses an X recent-search query into a tree, throwing {@link QuerySyntaxError} where X answers 400. */
export function parseQuery(query: string, maxLength: number): QueryNode {
  // X counts the whole string, spaces and operators included.
  const length = [...query].length;
  if (length > maxLength) {
    throw new QuerySyntaxError(`${PREFIX}Query length ${length} exceeds the maximum of ${maxLength} characters`);
  }
  const tree = new Parser(lexQuery(query)).parse();
  if (!anchored(tree)) {
    throw new QuerySyntaxError(`${PREFIX}The query must contain at least one positive standalone operator (negations and lang:, is:, has: cannot stand alone)`);
  }
  return tree;
}

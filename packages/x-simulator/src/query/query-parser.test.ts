import { QuerySyntaxError, type QueryNode } from './query-ast';
import { parseQuery } from './query-parser';

const parse = (query: string, max = 512): QueryNode => parseQuery(query, max);

/** A compact rendering of the tree: AND as (a b), OR as [a | b], NOT as !a. */
function show(node: QueryNode): string {
  switch (node.kind) {
    case 'and':
      return `(${node.children.map(show).join(' ')})`;
    case 'or':
      return `[${node.children.map(show).join(' | ')}]`;
    case 'not':
      return `!${show(node.child)}`;
    case 'term': {
      const { type, ...rest } = node.term;
      return `${type}:${Object.values(rest).flat().join(',')}`;
    }
  }
}

describe('parseQuery operators', () => {
  it.each([
    ['#BTC', 'hashtag:btc'],
    ['$TSLA', 'cashtag:tsla'],
    ['@Alice', 'mention:alice'],
    ['Bitcoin', 'keyword:bitcoin'],
    ['"to the moon"', 'phrase:to,the,moon'],
    ['from:Alice', 'from:alice'],
    ['from:12345', 'from:12345'],
    ['to:bob', 'to:bob'],
    ['conversation_id:1346889436626259968', 'conversation_id:1346889436626259968'],
    ['#a lang:EN', '(hashtag:a lang:en)'],
    ['#a is:retweet', '(hashtag:a is:retweet)'],
    ['#a is:reply', '(hashtag:a is:reply)'],
    ['#a has:cashtags', '(hashtag:a has:cashtags)'],
    ['min_likes:10', 'min:likes,10'],
    ['#a FROM:bob', '(hashtag:a from:bob)'],
    ['café', 'keyword:cafe'],
  ])('parses %s', (query, expected) => {
    expect(show(parse(query))).toBe(expected);
  });

  it('negates a single operator with a leading dash', () => {
    expect(show(parse('#btc -is:retweet -is:reply -spam'))).toBe('(hashtag:btc !is:retweet !is:reply !keyword:spam)');
  });

  it('reads lowercase "or" as a keyword, not the OR operator', () => {
    expect(show(parse('#a or #b'))).toBe('(hashtag:a keyword:or hashtag:b)');
  });
});

describe('parseQuery precedence', () => {
  it('binds whitespace AND tighter than OR: a OR b c is a OR (b c)', () => {
    expect(show(parse('#a OR #b #c'))).toBe('[hashtag:a | (hashtag:b hashtag:c)]');
  });

  it('groups with parentheses: (a OR b) c', () => {
    expect(show(parse('(#a OR #b) #c'))).toBe('([hashtag:a | hashtag:b] hashtag:c)');
  });

  it('parses the service query shape with nested groups and negations', () => {
    expect(show(parse('(#BTC OR #ETH OR $TSLA) lang:en -is:retweet -is:reply'))).toBe(
      '([hashtag:btc | hashtag:eth | cashtag:tsla] lang:en !is:retweet !is:reply)',
    );
    expect(show(parse('(from:alice OR from:bob) -is:retweet'))).toBe('([from:alice | from:bob] !is:retweet)');
  });

  it('accepts a group glued to a word: a(b OR c)', () => {
    expect(show(parse('#a(#b OR #c)'))).toBe('(hashtag:a [hashtag:b | hashtag:c])');
  });
});

describe('parseQuery refusals', () => {
  it('accepts a query of exactly maxQueryLength characters and refuses one more, counting spaces and operators', () => {
    const exact = `#${'a'.repeat(510)} `;
    expect(exact.length).toBe(512);
    expect(() => parse(exact)).not.toThrow();
    expect(() => parse(`${exact}b`)).toThrow(/exceeds the maximum of 512/);
  });

  it('uses the configured limit (4096 on Enterprise)', () => {
    const long = `#${'a'.repeat(1000)}`;
    expect(() => parse(long, 512)).toThrow(QuerySyntaxError);
    expect(() => parse(long, 4096)).not.toThrow();
  });

  it.each([
    ['an empty query', ''],
    ['only spaces', '   '],
    ['an unbalanced opening parenthesis', '(#a OR #b'],
    ['an unbalanced closing parenthesis', '#a OR #b)'],
    ['an empty group', '#a ()'],
    ['OR without a left operand', 'OR #a'],
    ['OR without a right operand', '#a OR'],
    ['OR twice', '#a OR OR #b'],
    ['a negated group', '#a -(#b OR #c)'],
    ['a lone dash', '#a - #b'],
    ['an unterminated quote', '#a "to the'],
    ['an unknown operator', 'foo:bar #a'],
    ['min_faves (renamed min_likes)', 'min_faves:10'],
    ['an unknown is: value', '#a is:cat'],
    ['a bad from: handle', 'from:this_handle_is_too_long'],
    ['a bad conversation_id', 'conversation_id:abc'],
    ['a bare #', '# #a'],
    ['only lang:', 'lang:en'],
    ['only negations', '-#a -is:retweet'],
    ['an OR branch with only lang:', '#a OR lang:en'],
  ])('refuses %s', (_what, query) => {
    expect(() => parse(query)).toThrow(QuerySyntaxError);
  });

  it("words its messages like X's, with the position", () => {
    expect(() => parse('#a -(#b)')).toThrow(/^There were errors processing your request: .*\(at position 4\)$/);
  });

  it('treats a URL as a keyword, not as an operator named https', () => {
    expect(show(parse('https://example.com'))).toBe('keyword:https,example,com');
  });
});

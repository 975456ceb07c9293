import { extractEntities } from './entities';

describe('extractEntities', () => {
  it('finds hashtags with inclusive start, exclusive end spanning the #, and the tag without #', () => {
    const text = 'Join us at the #DevRel meetup';
    const { hashtags } = extractEntities(text);
    expect(hashtags).toEqual([{ start: 15, end: 22, tag: 'DevRel' }]);
    expect(text.slice(15, 22)).toBe('#DevRel');
  });

  it('counts indices in code points, so an emoji before a tag shifts it by one, not two', () => {
    const { hashtags } = extractEntities('😀 #btc');
    expect(hashtags).toEqual([{ start: 2, end: 6, tag: 'btc' }]);
  });

  it('finds cashtags of 1-6 letters after whitespace, tag without $', () => {
    const { cashtags } = extractEntities('$TSLA up, $BTC.X too, not $TOOLONGX or a$AAPL or $5');
    expect(cashtags.map((entity) => entity.tag)).toEqual(['TSLA', 'BTC.X']);
    expect(cashtags[0]).toEqual({ start: 0, end: 5, tag: 'TSLA' });
  });

  it('skips all-digit hashtags and hashtags glued to a word', () => {
    expect(extractEntities('#2024 #a1 word#tag').hashtags.map((entity) => entity.tag)).toEqual(['a1']);
  });

  it('finds consecutive hashtags and Unicode tags', () => {
    expect(extractEntities('#café,#日本 #a_b').hashtags.map((entity) => entity.tag)).toEqual(['café', '日本', 'a_b']);
  });

  it('finds mentions of valid handles only', () => {
    const { mentions } = extractEntities('@alice hi @bob_1, mail me at x@example.com, @waytoolonghandle123');
    expect(mentions).toEqual([
      { start: 0, end: 6, username: 'alice' },
      { start: 10, end: 16, username: 'bob_1' },
    ]);
  });
});

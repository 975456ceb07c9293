import { codePointLength } from './code-points';
import { extractEntities } from './entities';
import { longPostShown, retweetText } from './post-text';
import { displayUrl, tcoUrl, wrapTypedUrls } from './tco-links';

describe('retweetText', () => {
  it('keeps `RT @author: text` whole up to 140 code points', () => {
    const original = 'x'.repeat(140 - 'RT @bob: '.length);
    const { whole, shown } = retweetText('bob', { text: original, entities: extractEntities(original) });
    expect(whole.text).toBe(`RT @bob: ${original}`);
    expect(codePointLength(whole.text)).toBe(140);
    expect(shown).toBeNull();
  });

  it('cuts a longer one to its first 139 code points, trailing spaces dropped, then …, with the entities that end before the cut', () => {
    const original = `${'word '.repeat(25)}#kept ${'a'.repeat(3)} #cutoff tail`;
    const { whole, shown } = retweetText('bob', { text: original, entities: extractEntities(original) });
    expect(shown).not.toBeNull();
    expect(codePointLength(shown!.text)).toBeLessThanOrEqual(140);
    expect(shown!.text.endsWith('…')).toBe(true);
    expect(whole.text.startsWith(shown!.text.slice(0, -1))).toBe(true);
    expect(shown!.entities.mentions).toEqual([{ start: 3, end: 7, username: 'bob' }]);
    expect(shown!.entities.hashtags.map((tag) => tag.tag)).toEqual(['kept']);
    expect(whole.entities.hashtags.map((tag) => tag.tag)).toEqual(['kept', 'cutoff']);
  });

  it('cuts mid-word at 139 code points, and drops whitespace before the … (139 code points in all, as X sends such a cut)', () => {
    // "RT @bob: " is 9 code points.
    const midWord = `${'a'.repeat(127)} more words`;
    const cut = retweetText('bob', { text: midWord, entities: extractEntities(midWord) }).shown!.text;
    expect(cut).toBe(`RT @bob: ${'a'.repeat(127)} mo…`);
    expect(codePointLength(cut)).toBe(140);
    const spaced = `${'a'.repeat(129)} rest of it`;
    const trimmed = retweetText('bob', { text: spaced, entities: extractEntities(spaced) }).shown!.text;
    expect(trimmed).toBe(`RT @bob: ${'a'.repeat(129)}…`);
    expect(codePointLength(trimmed)).toBe(139);
  });
});

describe('longPostShown', () => {
  const link = { url: 'https://t.co/ABCDEFGHIJ', expandedUrl: 'https://twitter.com/i/web/status/1', displayUrl: 'twitter.com/i/web/status/1' };

  it('shows about the first 275 code points, … and the t.co link to the whole, with entities over that text only', () => {
    const text = `#first ${'é'.repeat(300)} #last`;
    const shown = longPostShown({ text, entities: extractEntities(text) }, link);
    expect(shown.text).toBe(`#first ${'é'.repeat(268)}… ${link.url}`);
    expect(shown.entities.hashtags.map((tag) => tag.tag)).toEqual(['first']);
    expect(shown.entities.urls).toEqual([{ start: 277, end: 300, link }]);
  });

  it('never splits a link: one the cut would split is left out', () => {
    const wrapped = wrapTypedUrls(`${'a '.repeat(130)}https://example.com/page ${'b '.repeat(30)}`, 'seed');
    const whole = { text: wrapped.text, entities: extractEntities(wrapped.text, wrapped.links) };
    const shown = longPostShown(whole, link);
    expect(shown.text).toBe(`${'a '.repeat(130).trimEnd()}… ${link.url}`);
    expect(shown.entities.urls.map((url) => url.link.url)).toEqual([link.url]);
  });
});

describe('t.co links', () => {
  it('draws a stable 10-character t.co address from a seed', () => {
    expect(tcoUrl('a')).toMatch(/^https:\/\/t\.co\/[0-9A-Za-z]{10}$/);
    expect(tcoUrl('a')).toBe(tcoUrl('a'));
    expect(tcoUrl('a')).not.toBe(tcoUrl('b'));
  });

  it('displays a URL without scheme and www., cut to 15 code points after the host with …', () => {
    expect(displayUrl('https://www.example.com/')).toBe('example.com');
    expect(displayUrl('http://go.trade-ideas.com/SHHb')).toBe('go.trade-ideas.com/SHHb');
    expect(displayUrl('https://twitter.com/i/web/status/1576994789110992896')).toBe('twitter.com/i/web/status/1…');
    expect(displayUrl('https://uiadrian.gumroad.com/l/web-design-guide/?offer_code=twk0uc9f7')).toBe('uiadrian.gumroad.com/l/web-design-g…');
  });

  it('wraps every typed address, leaving sentence punctuation outside the link', () => {
    const { text, links } = wrapTypedUrls('see https://example.com/a, and (http://b.example/x).', 'p1');
    expect(links.map((link) => link.expandedUrl)).toEqual(['https://example.com/a', 'http://b.example/x']);
    expect(text).toBe(`see ${links[0]!.url}, and (${links[1]!.url}).`);
    expect(extractEntities(text, links).urls.map((url) => [url.start, url.end])).toEqual([
      [4, 27],
      [34, 57],
    ]);
  });
});

import { fitParts, splitLinks, type BodyPart } from './post-body';

const render = (parts: readonly BodyPart[]) => parts.map((part) => (part.kind === 'text' ? part.text : `[${part.label}](${part.url})`)).join('');

describe('splitLinks', () => {
  const urls = [
    { url: 'https://t.co/abc', expanded_url: 'https://a.example/', display_url: 'a.example' },
    { url: 'https://t.co/abcd', expanded_url: 'https://b.example/', display_url: 'b.example' },
  ];

  it('matches each t.co link whole, so t.co/abc never takes the start of t.co/abcd, and leaves an unlisted one as text', () => {
    expect(splitLinks('x https://t.co/abcd y https://t.co/abc. https://t.co/zzz', urls, { dropMedia: false })).toEqual([
      { kind: 'text', text: 'x ' },
      { kind: 'link', url: 'https://b.example/', label: 'b.example' },
      { kind: 'text', text: ' y ' },
      { kind: 'link', url: 'https://a.example/', label: 'a.example' },
      { kind: 'text', text: '. https://t.co/zzz' },
    ]);
  });

  it('leaves out only a media link that ends the text, and only when asked', () => {
    const media = [...urls, { url: 'https://t.co/pic', expanded_url: 'https://x.com/a/status/1/video/1', display_url: 'pic.twitter.com/pic' }];
    expect(splitLinks('look https://t.co/pic \n', media, { dropMedia: true })).toEqual([{ kind: 'text', text: 'look' }]);
    expect(render(splitLinks('https://t.co/pic then', media, { dropMedia: true }))).toBe('[pic.twitter.com/pic](https://x.com/a/status/1/video/1) then');
    expect(render(splitLinks('look https://t.co/pic', media, { dropMedia: false }))).toBe('look [pic.twitter.com/pic](https://x.com/a/status/1/video/1)');
  });
});

describe('fitParts', () => {
  const parts: BodyPart[] = [
    { kind: 'text', text: '😀😀 ' },
    { kind: 'link', url: 'https://a.example/', label: 'a.example' },
    { kind: 'text', text: ' tail' },
  ];

  it('keeps a link whole or leaves it out, never cutting it or an emoji', () => {
    const sizes = Array.from({ length: render(parts).length + 1 }, (_, budget) => render(fitParts(parts, budget, (p) => render(p).length)));
    for (const [budget, fitted] of sizes.entries()) {
      expect(fitted.length).toBeLessThanOrEqual(budget);
      expect(fitted === '' || fitted.startsWith('😀') || fitted === '…').toBe(true);
      expect(fitted).not.toMatch(/\[[^\]]*$|\]\([^)]*$|[\uD800-\uDBFF]$/);
    }
    expect(sizes[8]).toBe('😀😀…');
    expect(sizes[37]).toBe('😀😀…');
    expect(sizes[38]).toBe('😀😀 [a.example](https://a.example/) …');
    expect(sizes[39]).toBe('😀😀 [a.example](https://a.example/) t…');
    expect(sizes.at(-1)).toBe(render(parts));
  });
});

import { linkifiedHtml } from './inbox-page';

const link = (url: string) => `<a href="${url}" target="_blank" rel="noopener noreferrer">${url}</a>`;

describe('linkifiedHtml', () => {
  it('makes each http and https URL a link and escapes the text around it', () => {
    expect(linkifiedHtml('a <i>b</i> http://x.test/a and https://y.test/b?c=1&d=2 end')).toBe(
      `a &lt;i&gt;b&lt;/i&gt; ${link('http://x.test/a')} and ${link('https://y.test/b?c=1&amp;d=2')} end`,
    );
  });

  it('leaves sentence punctuation and brackets after a URL outside the link', () => {
    expect(linkifiedHtml('See https://x.test/r?t=1. Or (https://x.test/s), then https://x.test/u!')).toBe(
      `See ${link('https://x.test/r?t=1')}. Or (${link('https://x.test/s')}), then ${link('https://x.test/u')}!`,
    );
  });

  it('never links another scheme and never lets a quote out of the attribute', () => {
    expect(linkifiedHtml('javascript:alert(1) data:text/html,x')).toBe('javascript:alert(1) data:text/html,x');
    expect(linkifiedHtml('"https://x.test/a"onmouseover="alert(1)"')).toBe(`&quot;${link('https://x.test/a')}&quot;onmouseover=&quot;alert(1)&quot;`);
    expect(linkifiedHtml('<https://x.test/a>')).toBe(`&lt;${link('https://x.test/a')}&gt;`);
  });

  it('escapes text with no URL in it', () => {
    expect(linkifiedHtml(`it's <ok> & "fine"`)).toBe('it&#39;s &lt;ok&gt; &amp; &quot;fine&quot;');
  });
});

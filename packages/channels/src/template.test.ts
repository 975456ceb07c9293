import { escapeMrkdwn } from './slack/slack-format';
import { renderTemplate } from './template';
import { fitText } from './text-fit';
import { accountAlert, EVERY_PLACEHOLDER, hashtagAlert } from './test-support/alerts';

describe('renderTemplate', () => {
  it('fills every placeholder with the prefixes the API gives for a hashtag post and leaves unknown ones as written', () => {
    expect(renderTemplate(EVERY_PLACEHOLDER, hashtagAlert)).toBe(
      '#btc|@alice|Alice Example|Bitcoin just crossed 100k #btc|https://x.com/alice/status/1890000000000000001|btc||{unknown}',
    );
  });

  it('leaves {hashtag} empty and fills {account} bare for an account post', () => {
    expect(renderTemplate('{source} {hashtag}/{account}', accountAlert)).toBe('@alice /alice');
  });

  it('does not expand placeholders that appear inside a value', () => {
    expect(renderTemplate('{text}', { ...hashtagAlert, text: 'literal {url} here' })).toBe('literal {url} here');
  });

  it('fills {text} with the post as its author wrote it, an "&amp;" they typed included, escaped only by the caller', () => {
    const alert = { ...hashtagAlert, text: 'Fish & Chips <3 > 2 &amp; more' };
    expect(renderTemplate('{text}', alert)).toBe('Fish & Chips <3 > 2 &amp; more');
    expect(renderTemplate('{text}', alert, { escape: escapeMrkdwn })).toBe('Fish &amp; Chips &lt;3 &gt; 2 &amp;amp; more');
  });

  it('escapes substituted values but not the template itself', () => {
    const escape = (value: string) => value.replace(/</g, '&lt;');
    expect(renderTemplate('<{url}|{text}>', { ...hashtagAlert, text: '<b>' }, { escape })).toBe(
      '<https://x.com/alice/status/1890000000000000001|&lt;b>>',
    );
  });

  it('trims only the post text when the rendering exceeds the limit, keeping the link whole', () => {
    const rendered = renderTemplate('{text} {url}', { ...hashtagAlert, text: 'x'.repeat(500) }, { maxLength: 100 });
    expect(rendered.length).toBeLessThanOrEqual(100);
    expect(rendered.endsWith('… https://x.com/alice/status/1890000000000000001')).toBe(true);
  });
});

describe('fitText', () => {
  it('never splits an emoji made of two UTF-16 units', () => {
    const fitted = fitText('😀'.repeat(10), 6);
    expect(fitted).toBe('😀😀…');
    expect(fitted.length).toBeLessThanOrEqual(6);
  });

  it('measures the rendered form so escaping growth counts toward the limit', () => {
    const escape = (value: string) => value.replace(/&/g, '&amp;');
    const fitted = fitText('&'.repeat(100), 20, (candidate) => escape(candidate).length);
    expect(escape(fitted).length).toBeLessThanOrEqual(20);
    expect(fitted).toBe(`${'&'.repeat(3)}…`);
  });
});

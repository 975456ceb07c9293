import { ChannelConfigError, createSender, deliver, telegramChannel, type AlertPost, type ChannelMessage, type TelegramChannelConfig } from '../index';
import { channel, EVERY_PLACEHOLDER, hashtagAlert, likeAlert, meta, RICH_POST_URL, richAlert } from '../test-support/alerts';
import { startFakeTelegram, type FakeTelegram } from '../test-support/fake-telegram';
import { startLocalServer, type LocalServer } from '../test-support/local-server';
import { visibleLength } from './telegram-format';

const POST_URL = 'https://x.com/alice/status/1890000000000000001';
const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const CHAT = '-1001234567890';

describe('telegram channel', () => {
  let telegram: FakeTelegram;
  // Where the posts' photos are: Telegram downloads a photo given by URL before it sends it.
  let images: LocalServer;
  const sender = createSender({ allowPrivateNetworks: true, timeoutMs: 5000 });
  beforeAll(async () => {
    telegram = await startFakeTelegram({ token: TOKEN, chats: [CHAT, '42'], blocked: ['42'], migrated: { '-100': -1009999 } });
    images = await startLocalServer((request) => {
      if (request.path === '/media/Fish.jpg') return { status: 200, headers: { 'content-type': 'image/jpeg' }, body: 'JFIF' };
      if (request.path === '/page') return { status: 200, headers: { 'content-type': 'text/html' }, body: '<html></html>' };
      return { status: 404 };
    });
  });
  afterEach(() => telegram.rejectHtml(false));
  afterAll(async () => {
    sender.close();
    await telegram.close();
    await images.close();
  });
  const photoAlert = (path = '/media/Fish.jpg'): AlertPost => ({ ...richAlert, media: [{ ...richAlert.media![0]!, url: `${images.origin}${path}` }] });
  const bodiesSince = (count: number) => telegram.received.slice(count).map((request) => ({ path: request.path, body: JSON.parse(request.body) }));
  const target = (overrides: Partial<TelegramChannelConfig> = {}) =>
    channel({ kind: 'telegram', botToken: TOKEN, chatId: CHAT, telegramBaseUrl: telegram.origin, ...overrides });
  const sent = (alert: ChannelMessage, config = target()) => JSON.parse(telegramChannel.buildRequest(alert, config, meta).body);

  it('posts the default card to /bot<token>/sendMessage as HTML with the link preview on', () => {
    const request = telegramChannel.buildRequest(hashtagAlert, channel({ kind: 'telegram', botToken: TOKEN, chatId: CHAT }), meta);
    expect(request.url).toBe(`https://api.telegram.org/bot${TOKEN}/sendMessage`);
    expect(request.headers).toEqual({ 'content-type': 'application/json' });
    expect(JSON.parse(request.body)).toEqual({
      chat_id: CHAT,
      text: `<b>New post on #btc</b>\n<b>@alice</b> · Alice Example\n\nBitcoin just crossed 100k #btc\n\n<a href="${POST_URL}">View post</a>`,
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: false },
    });
  });

  it('escapes & < > in every value, leaves # $ _ untouched, and Telegram parses it back to the original', async () => {
    const alert: AlertPost = { ...hashtagAlert, author_name: '<Evil & Co>', text: 'Price <b>$BTC</b> & #btc_news snake_case 5 > 3' };
    const body = sent(alert);
    expect(body.text).toBe(
      `<b>New post on #btc</b>\n<b>@alice</b> · &lt;Evil &amp; Co&gt;\n\nPrice &lt;b&gt;$BTC&lt;/b&gt; &amp; #btc_news snake_case 5 &gt; 3\n\n<a href="${POST_URL}">View post</a>`,
    );
    expect(await deliver(alert, target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
    expect(telegram.delivered.at(-1)).toEqual({
      chatId: CHAT,
      html: true,
      text: 'New post on #btc\n@alice · <Evil & Co>\n\nPrice <b>$BTC</b> & #btc_news snake_case 5 > 3\n\nView post',
    });
  });

  it('sends a post with a photo as sendPhoto, the card as its HTML caption without the media link, and the reader sees it', async () => {
    const alert = photoAlert();
    const caption =
      '<b>New post on #btc</b>\n<b>@alice</b> · Alice Example · <i>edited</i>\n\n' +
      'Fish &amp; Chips &lt;3 &gt; 2, I typed &amp;amp; myself. Menu: <a href="https://example.com/menu_(2026)?a=1&amp;b=2">example.com/menu_(2026)?a=1…</a>\n\n' +
      'Quoting <b>@bob</b> · Bob &lt;Chef&gt;\n<blockquote>Chips &gt; fries &amp; that is final</blockquote>\n' +
      '<a href="https://x.com/bob/status/1889999999999999999">View quoted post</a>\n\n' +
      `<a href="${RICH_POST_URL}">View post</a>`;
    const before = telegram.received.length;
    expect(await deliver(alert, target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
    expect(bodiesSince(before)).toEqual([
      { path: `/bot${TOKEN}/sendPhoto`, body: { chat_id: CHAT, photo: `${images.origin}/media/Fish.jpg`, caption, parse_mode: 'HTML' } },
    ]);
    expect(telegram.delivered.at(-1)).toEqual({
      chatId: CHAT,
      html: true,
      photo: `${images.origin}/media/Fish.jpg`,
      text:
        'New post on #btc\n@alice · Alice Example · edited\n\nFish & Chips <3 > 2, I typed &amp; myself. Menu: example.com/menu_(2026)?a=1…\n\n' +
        'Quoting @bob · Bob <Chef>\nChips > fries & that is final\nView quoted post\n\nView post',
    });
  });

  it('shows "Fish & Chips <3 > 2" escaped exactly once in the HTML and as typed to the reader', async () => {
    const alert: AlertPost = { ...hashtagAlert, text: 'Fish & Chips <3 > 2 &amp; more' };
    expect(sent(alert).text).toBe(
      `<b>New post on #btc</b>\n<b>@alice</b> · Alice Example\n\nFish &amp; Chips &lt;3 &gt; 2 &amp;amp; more\n\n<a href="${POST_URL}">View post</a>`,
    );
    await deliver(alert, target(), meta, sender);
    expect(telegram.delivered.at(-1)?.text).toBe('New post on #btc\n@alice · Alice Example\n\nFish & Chips <3 > 2 &amp; more\n\nView post');
  });

  it('sends a post without an image as sendMessage with links as <a href> and a preview of its first link', () => {
    const alert: AlertPost = { ...richAlert, media: [], quoted: null, edited_at: null };
    expect(sent(alert)).toEqual({
      chat_id: CHAT,
      text:
        '<b>New post on #btc</b>\n<b>@alice</b> · Alice Example\n\nFish &amp; Chips &lt;3 &gt; 2, I typed &amp;amp; myself. Menu: ' +
        '<a href="https://example.com/menu_(2026)?a=1&amp;b=2">example.com/menu_(2026)?a=1…</a> ' +
        `<a href="${RICH_POST_URL}/photo/1">pic.x.com/Pic4567</a>\n\n<a href="${RICH_POST_URL}">View post</a>`,
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: false, url: 'https://example.com/menu_(2026)?a=1&b=2' },
    });
  });

  it('cuts the caption to 1024 characters as Telegram counts them (after entity parsing), whole entities and links, no tag left open', async () => {
    const urls = Array.from({ length: 80 }, (_, i) => ({ url: `https://t.co/L${i}`, expanded_url: `https://example.com/${i}?a&b`, display_url: `example.com/${i}` }));
    const alert: AlertPost = { ...photoAlert(), quoted: null, text: urls.map((url) => `<&> ${url.url}`).join(' && '), urls };
    const { caption } = sent(alert);
    expect(caption.length).toBeGreaterThan(1024);
    expect(visibleLength(caption)).toBeLessThanOrEqual(1024);
    expect(visibleLength(caption)).toBeGreaterThan(1000);
    expect(caption).toMatch(/…\n\n<a href="https:\/\/x\.com\/alice\/status\/1890000000000000002">View post<\/a>$/);
    expect(await deliver(alert, target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
    expect(telegram.delivered.at(-1)!.text.length).toBeLessThanOrEqual(1024);
  });

  it('gives a long quoted post a quarter of the caption and the post text the rest', async () => {
    const alert: AlertPost = { ...photoAlert(), text: '<'.repeat(2000), quoted: { ...richAlert.quoted!, text: '>'.repeat(2000) } };
    const { caption } = sent(alert);
    expect(visibleLength(caption)).toBeLessThanOrEqual(1024);
    const quote = /<blockquote>((?:&gt;)+)…<\/blockquote>/.exec(caption);
    // 256 for the quote: 254 characters, the ellipsis and the line break before it.
    expect(quote![1]!.length / '&gt;'.length).toBe(254);
    expect(caption).toMatch(/\n\n(&lt;)+…\n\nQuoting <b>@bob<\/b>/);
    expect(await deliver(alert, target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
  });

  it('cuts a long text message to 4096 after entity parsing without splitting an entity or a link', async () => {
    const urls = Array.from({ length: 300 }, (_, i) => ({ url: `https://t.co/L${i}`, expanded_url: `https://example.com/${i}?a&b`, display_url: `example.com/${i}` }));
    const alert: AlertPost = { ...hashtagAlert, text: urls.map((url) => `😀<&> ${url.url}`).join(' && '), urls };
    const { text } = sent(alert);
    expect(visibleLength(text)).toBeLessThanOrEqual(4096);
    expect(visibleLength(text)).toBeGreaterThan(4000);
    expect(await deliver(alert, target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
  });

  it('falls back to sendMessage with the same card, media link kept, when Telegram cannot fetch the photo', async () => {
    const alert = photoAlert('/media/gone.jpg');
    const before = telegram.received.length;
    expect(await deliver(alert, target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
    const [photo, message] = bodiesSince(before);
    expect(photo!.path).toBe(`/bot${TOKEN}/sendPhoto`);
    expect(message).toEqual({
      path: `/bot${TOKEN}/sendMessage`,
      body: {
        chat_id: CHAT,
        text:
          '<b>New post on #btc</b>\n<b>@alice</b> · Alice Example · <i>edited</i>\n\n' +
          'Fish &amp; Chips &lt;3 &gt; 2, I typed &amp;amp; myself. Menu: <a href="https://example.com/menu_(2026)?a=1&amp;b=2">example.com/menu_(2026)?a=1…</a> ' +
          `<a href="${RICH_POST_URL}/photo/1">pic.x.com/Pic4567</a>\n\n` +
          'Quoting <b>@bob</b> · Bob &lt;Chef&gt;\n<blockquote>Chips &gt; fries &amp; that is final</blockquote>\n' +
          '<a href="https://x.com/bob/status/1889999999999999999">View quoted post</a>\n\n' +
          `<a href="${RICH_POST_URL}">View post</a>`,
        parse_mode: 'HTML',
        link_preview_options: { is_disabled: false, url: 'https://example.com/menu_(2026)?a=1&b=2' },
      },
    });
    expect(telegram.delivered.at(-1)).not.toHaveProperty('photo');
  });

  it.each([
    ['failed to get HTTP URL content', '/media/gone.jpg', 'Bad Request: failed to get HTTP URL content'],
    ['wrong type of the web page content', '/page', 'Bad Request: wrong type of the web page content'],
  ])('asks for a resend without the photo when Telegram answers %s', async (_what, path, description) => {
    const result = await sender.send(telegramChannel.buildRequest(photoAlert(path), target(), meta));
    expect(telegramChannel.interpret(result)).toEqual({ outcome: 'retry-without-media', reason: `Telegram answered 400: ${description}` });
  });

  it('asks for a resend without the photo when Telegram answers wrong file identifier/HTTP URL specified', async () => {
    const request = telegramChannel.buildRequest(photoAlert(), target(), meta);
    const result = await sender.send({ ...request, body: JSON.stringify({ ...JSON.parse(request.body), photo: 'not a file id' }) });
    expect(telegramChannel.interpret(result)).toEqual({
      outcome: 'retry-without-media',
      reason: 'Telegram answered 400: Bad Request: wrong file identifier/HTTP URL specified',
    });
  });

  it('asks for a resend as a text message when Telegram answers message caption is too long', async () => {
    const request = telegramChannel.buildRequest(photoAlert(), target(), meta);
    const result = await sender.send({ ...request, body: JSON.stringify({ ...JSON.parse(request.body), caption: '&amp;'.repeat(1025) }) });
    expect(telegramChannel.interpret(result)).toEqual({ outcome: 'retry-without-media', reason: 'Telegram answered 400: Bad Request: message caption is too long' });
  });

  it('fails permanently when Telegram answers message is too long', async () => {
    const request = telegramChannel.buildRequest(hashtagAlert, target(), meta);
    const result = await sender.send({ ...request, body: JSON.stringify({ ...JSON.parse(request.body), text: 'x'.repeat(4097) }) });
    expect(telegramChannel.interpret(result)).toEqual({ outcome: 'permanent', reason: 'Telegram answered 400: Bad Request: message is too long' });
  });

  it('resends a photo card with a plain caption when HTML cannot be parsed, then as plain text when the photo cannot be fetched', async () => {
    telegram.rejectHtml(true);
    const before = telegram.received.length;
    expect(await deliver(photoAlert('/media/gone.jpg'), target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
    const sentNow = bodiesSince(before);
    expect(sentNow.map(({ path, body }) => [path.replace(`/bot${TOKEN}/`, ''), body.parse_mode ?? 'plain'])).toEqual([
      ['sendPhoto', 'HTML'],
      ['sendPhoto', 'plain'],
      ['sendMessage', 'plain'],
    ]);
    expect(sentNow[2]!.body.text).toBe(
      'New post on #btc\n@alice · Alice Example · edited\n\n' +
        `Fish & Chips <3 > 2, I typed &amp; myself. Menu: https://example.com/menu_(2026)?a=1&b=2 ${RICH_POST_URL}/photo/1\n\n` +
        'Quoting @bob · Bob <Chef>\n> Chips > fries & that is final\nhttps://x.com/bob/status/1889999999999999999\n\n' +
        RICH_POST_URL,
    );
  });

  it('gives up after the text resend when Telegram refuses that too', async () => {
    const attempt = await deliver(photoAlert('/media/gone.jpg'), target({ chatId: '-555' }), meta, sender);
    expect(attempt).toEqual({ outcome: { outcome: 'permanent', reason: 'Telegram answered 400: Bad Request: chat not found', disableChannel: true }, status: 400 });
  });

  it('keeps the plain card for a deleted post and for an engagement alert', () => {
    const deleted: AlertPost = { ...richAlert, text: '', author_name: '', urls: [], media: [], deleted: true };
    expect(sent(deleted)).toEqual({
      chat_id: CHAT,
      text: `<b>New post on #btc</b>\n<b>@alice</b>\n\n<a href="${RICH_POST_URL}">View post</a>`,
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: false },
    });
    const like: AlertPost = { ...likeAlert, urls: richAlert.urls, media: richAlert.media, quoted: richAlert.quoted, edited_at: richAlert.edited_at };
    expect(sent(like)).toEqual(sent(likeAlert));
  });

  it('sends the default card when a template renders to nothing for this post (Telegram needs 1-4096 characters)', () => {
    expect(sent(hashtagAlert, target({ template: '{account}\n' }))).toEqual(sent(hashtagAlert));
    expect(sent(hashtagAlert, target({ template: '{account}\n' })).parse_mode).toBe('HTML');
    const plain = JSON.parse(telegramChannel.buildRequest(hashtagAlert, target({ template: '{account}' }), meta, { markup: false, media: true }).body);
    expect(plain.text).toMatch(/^New post on #btc\n@alice · Alice Example/);
  });

  it('escapes quotes in the link attribute', async () => {
    const alert: AlertPost = { ...hashtagAlert, url: 'https://x.com/a?q="x"&y=<z>' };
    expect(sent(alert).text).toContain('<a href="https://x.com/a?q=&quot;x&quot;&amp;y=&lt;z&gt;">View post</a>');
    expect((await deliver(alert, target(), meta, sender)).outcome).toEqual({ outcome: 'delivered' });
  });

  it('quotes the liked post in a blockquote on an engagement card', () => {
    expect(sent(likeAlert).text).toBe(
      `<b>❤️ @bob (Bob) liked a post on #btc</b>\n\n<blockquote>Bitcoin just crossed 100k #btc</blockquote>\n\n<a href="${POST_URL}">View post</a>`,
    );
  });

  it('sends a custom template as plain text with every placeholder and no parse_mode', async () => {
    const alert: AlertPost = { ...hashtagAlert, text: 'a <b> & c' };
    expect(sent(alert, target({ template: EVERY_PLACEHOLDER }))).toEqual({
      chat_id: CHAT,
      text: `#btc|@alice|Alice Example|a <b> & c|${POST_URL}|btc||{unknown}`,
      link_preview_options: { is_disabled: false },
    });
    await deliver(alert, target({ template: '{text}' }), meta, sender);
    expect(telegram.delivered.at(-1)).toEqual({ chatId: CHAT, html: false, text: 'a <b> & c' });
  });

  it('counts the 4096 limit after entity parsing, trims only the post text, and keeps the link', async () => {
    const alert: AlertPost = { ...hashtagAlert, text: '&'.repeat(5000) };
    const { text } = sent(alert);
    expect(text.length).toBeGreaterThan(4096);
    expect(text.endsWith(`&amp;…\n\n<a href="${POST_URL}">View post</a>`)).toBe(true);
    expect((await deliver(alert, target(), meta, sender)).outcome).toEqual({ outcome: 'delivered' });
    const seen = telegram.delivered.at(-1)!.text;
    expect(seen.length).toBe(4096);
  });

  it('trims a long template to 4096 characters and keeps the link', () => {
    const { text } = sent({ ...hashtagAlert, text: 'q'.repeat(5000) }, target({ template: '{text}\n{url}' }));
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text.endsWith(`…\n${POST_URL}`)).toBe(true);
  });

  it('sends a digest of ten alerts within the limit with previews off', async () => {
    const alerts = Array.from({ length: 10 }, (_, i) => ({ ...hashtagAlert, text: `<${i}> ${'w'.repeat(800)}` }));
    const body = sent({ type: 'digest', alerts });
    expect(body.link_preview_options).toEqual({ is_disabled: true });
    expect(body.text.split('\n')[0]).toBe('<b>10 new alerts</b>');
    expect(body.text.split('\n')[2]).toMatch(/^<b>#btc<\/b> · @alice: &lt;0&gt; w+… <a href="https:\/\/x\.com\/alice\/status\/1890000000000000001">View post<\/a>$/);
    expect((await deliver({ type: 'digest', alerts }, target(), meta, sender)).outcome).toEqual({ outcome: 'delivered' });
  });

  it('retries after retry_after seconds on 429 flood control', async () => {
    telegram.floodNext(2);
    expect((await deliver(hashtagAlert, target(), meta, sender)).outcome).toEqual({
      outcome: 'retry',
      afterMs: 2000,
      reason: 'Telegram answered 429: Too Many Requests: retry after 2',
    });
  });

  it("gets can't parse entities for an unescaped < and interprets it as retry-plain", async () => {
    const request = telegramChannel.buildRequest(hashtagAlert, target(), meta);
    const broken = { ...JSON.parse(request.body), text: 'Price <$BTC> rises' };
    const outcome = telegramChannel.interpret(await sender.send({ ...request, body: JSON.stringify(broken) }));
    expect(outcome).toEqual({
      outcome: 'retry-plain',
      reason: 'Telegram answered 400: Bad Request: can\'t parse entities: Unsupported start tag "" at byte offset 6',
    });
  });

  it("resends once as plain text when Telegram can't parse entities", async () => {
    telegram.rejectHtml(true);
    const first = await sender.send(telegramChannel.buildRequest(hashtagAlert, target(), meta));
    expect(telegramChannel.interpret(first)).toMatchObject({ outcome: 'retry-plain' });

    const before = telegram.received.length;
    expect(await deliver(hashtagAlert, target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
    const [html, plain] = telegram.received.slice(before).map((request) => JSON.parse(request.body));
    expect(html.parse_mode).toBe('HTML');
    expect(plain).toEqual({
      chat_id: CHAT,
      text: `New post on #btc\n@alice · Alice Example\n\nBitcoin just crossed 100k #btc\n\n${POST_URL}`,
      link_preview_options: { is_disabled: false },
    });
  });

  it('disables the channel on 400 chat not found', async () => {
    expect((await deliver(hashtagAlert, target({ chatId: '-555' }), meta, sender)).outcome).toEqual({
      outcome: 'permanent',
      reason: 'Telegram answered 400: Bad Request: chat not found',
      disableChannel: true,
    });
  });

  it('disables the channel on 403 bot was blocked by the user', async () => {
    expect((await deliver(hashtagAlert, target({ chatId: '42' }), meta, sender)).outcome).toEqual({
      outcome: 'permanent',
      reason: 'Telegram answered 403: Forbidden: bot was blocked by the user',
      disableChannel: true,
    });
  });

  it('reports the new chat id when the group became a supergroup', async () => {
    expect((await deliver(hashtagAlert, target({ chatId: '-100' }), meta, sender)).outcome).toEqual({
      outcome: 'permanent',
      reason: 'the group became a supergroup with chat id -1009999; update the chat id and resend',
      migrateToChatId: '-1009999',
    });
  });

  it('disables the channel when the token is revoked (401) without showing the token', async () => {
    const outcome = (await deliver(hashtagAlert, target({ botToken: '123456789:revokedTokenValue' }), meta, sender)).outcome;
    expect(outcome).toEqual({ outcome: 'permanent', reason: 'Telegram answered 401: Unauthorized', disableChannel: true });
  });

  it('retries a 5xx answer', () => {
    const body = JSON.stringify({ ok: false, error_code: 502, description: 'Bad Gateway' });
    expect(telegramChannel.interpret({ status: 502, headers: {}, body })).toEqual({ outcome: 'retry', reason: 'Telegram answered 502: Bad Gateway' });
  });

  it('redacts /bot<token>/ from any reason', () => {
    const body = JSON.stringify({ ok: false, error_code: 400, description: `Bad Request: wrong path /bot${TOKEN}/sendMessage` });
    const outcome = telegramChannel.interpret({ status: 400, headers: {}, body });
    expect(JSON.stringify(outcome)).not.toContain(TOKEN);
    expect(outcome).toEqual({ outcome: 'permanent', reason: 'Telegram answered 400: Bad Request: wrong path /bot[redacted]/sendMessage' });
  });

  it('keeps the token out of network failure reasons', async () => {
    const closed = await startLocalServer(() => ({ status: 200 }));
    await closed.close();
    const attempt = await deliver(hashtagAlert, target({ telegramBaseUrl: closed.origin }), meta, sender);
    expect(attempt).toEqual({ outcome: { outcome: 'retry', reason: 'the destination refused the connection' }, status: null, failure: 'network' });
  });

  it('refuses a malformed token that could change the request path', () => {
    const build = () => telegramChannel.buildRequest(hashtagAlert, target({ botToken: '1:abc/../../x' }), meta);
    expect(build).toThrow(ChannelConfigError);
    expect(build).toThrow('the telegram bot token is missing or malformed');
  });
});

import { createSender, deliver, discordChannel, type AlertPost } from '../index';
import { accountAlert, channel, EVERY_PLACEHOLDER, hashtagAlert, likeAlert, meta, RICH_POST_URL, richAlert } from '../test-support/alerts';
import { startFakeDiscord, type FakeDiscord } from '../test-support/fake-discord';
import { discordUsername } from './discord-format';

const POST_URL = 'https://x.com/alice/status/1890000000000000001';

// A surrogate half without its partner: what a cut through an emoji leaves.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is left of markdown once whole masked links and escaped characters are taken out: a "[" or "]" here is a cut link. */
function strayBrackets(markdown: string): string[] {
  return markdown.replace(/\\./g, '').replace(/\[[^\]]*\]\([^)\s]*\)/g, '').match(/[[\]]/g) ?? [];
}

describe('discord channel', () => {
  let discord: FakeDiscord;
  const sender = createSender({ allowPrivateNetworks: true, timeoutMs: 5000 });
  beforeAll(async () => {
    discord = await startFakeDiscord();
  });
  afterAll(async () => {
    sender.close();
    await discord.close();
  });
  const target = () => channel({ kind: 'discord', url: discord.webhookUrl });

  it('builds the default card as one embed with the bot name and mentions disabled', () => {
    const request = discordChannel.buildRequest(hashtagAlert, channel({ kind: 'discord', url: 'https://discord.com/api/webhooks/1/tok' }), meta);
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://discord.com/api/webhooks/1/tok?wait=true');
    expect(request.headers).toEqual({ 'content-type': 'application/json' });
    expect(JSON.parse(request.body)).toEqual({
      username: 'Hashwatch',
      embeds: [
        {
          title: 'New post on #btc',
          url: POST_URL,
          description: `**@alice** · Alice Example\n\nBitcoin just crossed 100k #btc\n\n[View post](${POST_URL})`,
          color: 0x1d9bf0,
          timestamp: '2026-11-22T01:24:00.000Z',
        },
      ],
      allowed_mentions: { parse: [] },
    });
  });

  it('heads an account post with the account it came from', () => {
    const body = JSON.parse(discordChannel.buildRequest(accountAlert, target(), meta).body);
    expect(body.embeds[0].title).toBe('New post from @alice');
    expect(body.embeds[0].description).toBe(`**@alice** · Alice Example\n\nShipping a new release today\n\n[View post](${POST_URL})`);
  });

  it('gives a like its own card quoting the liked post', () => {
    const body = JSON.parse(discordChannel.buildRequest(likeAlert, target(), meta).body);
    expect(body.embeds).toEqual([
      {
        title: '❤️ @bob (Bob) liked a post on #btc',
        url: POST_URL,
        description: `> Bitcoin just crossed 100k #btc\n\n[View post](${POST_URL})`,
        color: 0xf91880,
        timestamp: '2026-11-22T01:30:00.000Z',
      },
    ]);
  });

  it('sends a custom template as content with every placeholder filled', () => {
    const body = JSON.parse(discordChannel.buildRequest(hashtagAlert, { ...target(), template: EVERY_PLACEHOLDER }, meta).body);
    expect(body).toEqual({
      username: 'Hashwatch',
      content: `#btc|@alice|Alice Example|Bitcoin just crossed 100k #btc|${POST_URL}|btc||{unknown}`,
      allowed_mentions: { parse: [] },
    });
  });

  it.each([
    ['Discord Alerts', 'Alerts'],
    ['my clyde bot', 'my bot'],
    ['DISdiscordCORD', 'Hashwatch'],
  ])('sanitizes the bot name %j to %j', (name, expected) => {
    expect(discordUsername(name)).toBe(expected);
  });

  it('keeps post text in a template from becoming a masked link in the content', () => {
    const alert: AlertPost = { ...hashtagAlert, text: 'see [click](https://evil.example) and \\[x](https://evil.example)' };
    const body = JSON.parse(discordChannel.buildRequest(alert, { ...target(), template: '{text} {url}' }, meta).body);
    expect(body.content).toBe(`see \\[click\\](https://evil.example) and \\\\\\[x\\](https://evil.example) ${alert.url}`);
    expect(strayBrackets(body.content)).toEqual([]);
  });

  it('sends the default card when a template renders to nothing for this post, since Discord refuses an empty message', () => {
    const body = JSON.parse(discordChannel.buildRequest(accountAlert, { ...target(), template: ' {hashtag} ' }, meta).body);
    expect(body).toEqual(JSON.parse(discordChannel.buildRequest(accountAlert, target(), meta).body));
    expect(body.embeds).toHaveLength(1);
  });

  it('cuts a bot name longer than 80 characters to 80', () => {
    expect(discordUsername('a'.repeat(100))).toBe('a'.repeat(80));
  });

  it('trims a long post to the 4096-character description and keeps the link, and Discord accepts it', async () => {
    const alert: AlertPost = { ...hashtagAlert, text: 'word '.repeat(2000) };
    const request = discordChannel.buildRequest(alert, target(), meta);
    const description: string = JSON.parse(request.body).embeds[0].description;
    expect(description.length).toBeLessThanOrEqual(4096);
    expect(description.endsWith(`…\n\n[View post](${POST_URL})`)).toBe(true);
    expect(discordChannel.interpret(await sender.send(request))).toEqual({ outcome: 'delivered' });
  });

  it('trims the post text of a template to the 2000-character content limit and keeps the link', async () => {
    const alert: AlertPost = { ...hashtagAlert, text: 'x'.repeat(3000) };
    const request = discordChannel.buildRequest(alert, { ...target(), template: '{source}: {text} {url}' }, meta);
    const content: string = JSON.parse(request.body).content;
    expect(content.length).toBeLessThanOrEqual(2000);
    expect(content.endsWith(`… ${POST_URL}`)).toBe(true);
    expect(discordChannel.interpret(await sender.send(request))).toEqual({ outcome: 'delivered' });
  });

  it('shows links as [display_url](expanded_url), the photo as the image, the quoted post as a field and an edit in the footer, and Discord saves it', async () => {
    const expected = {
      username: 'Hashwatch',
      embeds: [
        {
          title: 'New post on #btc',
          url: RICH_POST_URL,
          // The trailing media link is left out: the photo is the embed's image.
          description:
            '**@alice** · Alice Example\n\nFish & Chips <3 > 2, I typed &amp; myself. Menu: ' +
            `[example.com/menu\\_(2026)?a=1…](https://example.com/menu_%282026%29?a=1&b=2)\n\n[View post](${RICH_POST_URL})`,
          color: 0x1d9bf0,
          timestamp: '2026-11-22T01:24:00.000Z',
          image: { url: 'https://pbs.twimg.com/media/Fish.jpg' },
          fields: [
            {
              name: 'Quoting',
              value: '**@bob** · Bob <Chef>\nChips > fries & that is final\n[View quoted post](https://x.com/bob/status/1889999999999999999)',
            },
          ],
          footer: { text: 'edited' },
        },
      ],
      allowed_mentions: { parse: [] },
    };
    expect(JSON.parse(discordChannel.buildRequest(richAlert, target(), meta).body)).toEqual(expected);
    expect(await deliver(richAlert, target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
    expect(discord.messages.at(-1)).toEqual(expected);
  });

  it('shows "Fish & Chips <3 > 2" as typed: & < > mean nothing to Discord', () => {
    const alert: AlertPost = { ...hashtagAlert, text: 'Fish & Chips <3 > 2 &amp; more' };
    expect(JSON.parse(discordChannel.buildRequest(alert, target(), meta).body).embeds[0].description).toBe(
      `**@alice** · Alice Example\n\nFish & Chips <3 > 2 &amp; more\n\n[View post](${POST_URL})`,
    );
  });

  it('escapes markdown in the post text so it cannot forge a link, format, quote, head or mention', () => {
    const alert: AlertPost = {
      ...hashtagAlert,
      author_name: 'Ali*ce*',
      text: '[free money](https://evil.example) **big** _it_ ~~s~~ ||spoiler|| `code` <@123> <t:1:R> a\\b\n> not a quote\n# not a heading\n- not a list\n1. not a list',
    };
    const description: string = JSON.parse(discordChannel.buildRequest(alert, target(), meta).body).embeds[0].description;
    expect(description).toBe(
      '**@alice** · Ali\\*ce\\*\n\n' +
        '\\[free money\\](https://evil.example) \\*\\*big\\*\\* \\_it\\_ \\~\\~s\\~\\~ \\|\\|spoiler\\|\\| \\`code\\` \\<@123> \\<t:1:R> a\\\\b\n' +
        '\\> not a quote\n\\# not a heading\n\\- not a list\n1\\. not a list' +
        `\n\n[View post](${POST_URL})`,
    );
    expect(strayBrackets(description)).toEqual([]);
  });

  it('keeps a media link that is not last, and shows a video by its preview image', () => {
    const alert: AlertPost = {
      ...richAlert,
      text: 'Watch https://t.co/Pic4567 then read https://t.co/Menu123',
      media: [{ type: 'video', url: null, preview_image_url: 'https://pbs.twimg.com/ext_tw_video_thumb/1/pu/img/Clip.jpg', width: 1280, height: 720, alt_text: null }],
      quoted: null,
      edited_at: null,
    };
    const [embed] = JSON.parse(discordChannel.buildRequest(alert, target(), meta).body).embeds;
    expect(embed.image).toEqual({ url: 'https://pbs.twimg.com/ext_tw_video_thumb/1/pu/img/Clip.jpg' });
    expect(embed.description).toBe(
      `**@alice** · Alice Example\n\nWatch [pic.x.com/Pic4567](${RICH_POST_URL}/photo/1) then read ` +
        `[example.com/menu\\_(2026)?a=1…](https://example.com/menu_%282026%29?a=1&b=2)\n\n[View post](${RICH_POST_URL})`,
    );
    expect(embed).not.toHaveProperty('fields');
    expect(embed).not.toHaveProperty('footer');
  });

  it('keeps the trailing media link as a link when the post has no image to show', () => {
    const alert: AlertPost = { ...richAlert, media: [], quoted: null, edited_at: null };
    const [embed] = JSON.parse(discordChannel.buildRequest(alert, target(), meta).body).embeds;
    expect(embed).not.toHaveProperty('image');
    expect(embed.description).toContain(`[pic.x.com/Pic4567](${RICH_POST_URL}/photo/1)\n\n[View post]`);
  });

  it('cuts a long post with many links between links and whole emoji, within 4096, and Discord accepts it', async () => {
    const urls = Array.from({ length: 60 }, (_, i) => ({ url: `https://t.co/L${i}`, expanded_url: `https://example.com/${i}`, display_url: `example.com/${i}` }));
    const text = urls.map((url, i) => `😀 item_${i} ${'🎉'.repeat(20)} ${url.url}`).join(' ');
    const alert: AlertPost = { ...hashtagAlert, text, urls };
    const request = discordChannel.buildRequest(alert, target(), meta);
    const description: string = JSON.parse(request.body).embeds[0].description;
    expect(description.length).toBeLessThanOrEqual(4096);
    expect(description.length).toBeGreaterThan(4000);
    expect(description).toMatch(/…\n\n\[View post\]\(https:\/\/x\.com\/alice\/status\/1890000000000000001\)$/);
    expect(strayBrackets(description)).toEqual([]);
    expect(description).not.toMatch(LONE_SURROGATE);
    expect(discordChannel.interpret(await sender.send(request))).toEqual({ outcome: 'delivered' });
  });

  it('cuts a long quoted post to the 1024-character field value, keeping its link, within 6000 for the message', async () => {
    const alert: AlertPost = { ...richAlert, text: 'z'.repeat(5000), quoted: { ...richAlert.quoted!, text: '*'.repeat(3000) } };
    const request = discordChannel.buildRequest(alert, target(), meta);
    const [embed] = JSON.parse(request.body).embeds;
    const value: string = embed.fields[0].value;
    expect(value.length).toBeLessThanOrEqual(1024);
    expect(value).toMatch(/^\*\*@bob\*\* · Bob <Chef>\n(\\\*)+…\n\[View quoted post\]\(https:\/\/x\.com\/bob\/status\/1889999999999999999\)$/);
    const total = [embed.title, embed.description, embed.fields[0].name, value, embed.footer.text].join('').length;
    expect(total).toBeLessThanOrEqual(6000);
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    expect(discordChannel.interpret(await sender.send(request))).toEqual({ outcome: 'delivered' });
  });

  it('keeps the plain card for a deleted post: no image, links, quote or edit mark', () => {
    const deleted: AlertPost = { ...richAlert, text: '', author_name: '', urls: [], media: [], deleted: true };
    expect(JSON.parse(discordChannel.buildRequest(deleted, target(), meta).body).embeds).toEqual([
      {
        title: 'New post on #btc',
        url: RICH_POST_URL,
        description: `**@alice**\n\n[View post](${RICH_POST_URL})`,
        color: 0x1d9bf0,
        timestamp: '2026-11-22T01:24:00.000Z',
      },
    ]);
  });

  it('keeps the engagement card whatever links, media or quote the alert carries', () => {
    const like: AlertPost = { ...likeAlert, urls: richAlert.urls, media: richAlert.media, quoted: richAlert.quoted, edited_at: richAlert.edited_at };
    expect(JSON.parse(discordChannel.buildRequest(like, target(), meta).body)).toEqual(JSON.parse(discordChannel.buildRequest(likeAlert, target(), meta).body));
  });

  it('lists a digest of rich posts with links as their display text, escaped, within the limits', async () => {
    const alerts = Array.from({ length: 10 }, (_, i) => ({ ...richAlert, text: `[x](y) ${i} ${'😀'.repeat(300)} https://t.co/Menu123` }));
    const request = discordChannel.buildRequest({ type: 'digest', alerts, total: 14 }, target(), meta);
    const [embed] = JSON.parse(request.body).embeds;
    const lines: string[] = embed.description.split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toMatch(/^\*\*#btc\*\* · @alice: \\\[x\\\]\(y\) 0 (😀)+… \[View post\]\(https:\/\/x\.com\/alice\/status\/1890000000000000002\)$/);
    expect(lines[10]).toBe('…and 4 more');
    expect(embed.description.length + embed.title.length).toBeLessThanOrEqual(6000);
    expect(embed.description).not.toMatch(LONE_SURROGATE);
    expect(discordChannel.interpret(await sender.send(request))).toEqual({ outcome: 'delivered' });
  });

  it('lists ten alerts of a digest within the embed limits and counts the rest', async () => {
    const alerts = Array.from({ length: 12 }, (_, i) => ({ ...hashtagAlert, text: `alert ${i} ${'y'.repeat(1000)}` }));
    const request = discordChannel.buildRequest({ type: 'digest', alerts }, target(), meta);
    const embed = JSON.parse(request.body).embeds[0];
    expect(embed.title).toBe('12 new alerts');
    const lines: string[] = embed.description.split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toMatch(/^\*\*#btc\*\* · @alice: alert 0 y+… \[View post\]\(https:\/\/x\.com\/alice\/status\/1890000000000000001\)$/);
    expect(lines[10]).toBe('…and 2 more');
    expect(discordChannel.interpret(await sender.send(request))).toEqual({ outcome: 'delivered' });
  });

  it('delivers to a live webhook and Discord saves the message', async () => {
    const before = discord.messages.length;
    const attempt = await deliver(hashtagAlert, target(), meta, sender);
    expect(attempt).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
    expect(discord.messages).toHaveLength(before + 1);
  });

  it('retries after retry_after seconds when Discord answers 429', async () => {
    discord.rateLimitNext(2);
    const result = await sender.send(discordChannel.buildRequest(hashtagAlert, target(), meta));
    expect(discordChannel.interpret(result)).toEqual({ outcome: 'retry', afterMs: 2000, reason: 'Discord rate limit' });
  });

  it('takes a fractional retry_after over the rounded Retry-After header', () => {
    const outcome = discordChannel.interpret({
      status: 429,
      headers: { 'retry-after': '1' },
      body: JSON.stringify({ message: 'You are being rate limited.', retry_after: 0.35, global: true }),
    });
    expect(outcome).toEqual({ outcome: 'retry', afterMs: 350, reason: 'Discord rate limit (global)' });
  });

  it('reads an exhausted bucket from the rate-limit headers of a successful answer and asks for a pause', () => {
    const saved = (headers: Record<string, string>) => discordChannel.interpret({ status: 200, headers, body: '{"id":"1"}' });
    expect(saved({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '1.25' })).toEqual({
      outcome: 'delivered',
      pauseMs: 1250,
    });
    // Room left, or no headers: nothing to wait for.
    expect(saved({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset-after': '1.25' })).toEqual({ outcome: 'delivered' });
    expect(saved({})).toEqual({ outcome: 'delivered' });
    expect(saved({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': 'soon' })).toEqual({ outcome: 'delivered' });
  });

  it('disables the channel when the webhook answers 404 Unknown Webhook', async () => {
    const result = await sender.send(
      discordChannel.buildRequest(hashtagAlert, channel({ kind: 'discord', url: `${discord.origin}/api/webhooks/1/deleted` }), meta),
    );
    expect(discordChannel.interpret(result)).toEqual({
      outcome: 'permanent',
      reason: 'Discord webhook not found (deleted): Unknown Webhook (code 10015)',
      disableChannel: true,
    });
  });

  it('fails permanently without disabling when Discord rejects the body with 400', async () => {
    const request = discordChannel.buildRequest(hashtagAlert, target(), meta);
    const result = await sender.send({ ...request, body: JSON.stringify({ username: 'Discord', content: 'hi' }) });
    expect(discordChannel.interpret(result)).toEqual({ outcome: 'permanent', reason: 'Discord answered 400: Invalid Form Body (code 50035)' });
  });

  it('retries a 5xx answer', () => {
    expect(discordChannel.interpret({ status: 502, headers: {}, body: '<html>Bad Gateway</html>' })).toEqual({
      outcome: 'retry',
      reason: 'Discord answered 502',
    });
  });

  it('never puts the webhook token in a reason', () => {
    const outcome = discordChannel.interpret({
      status: 400,
      headers: {},
      body: 'bad request to https://discord.com/api/webhooks/123/secret-token-value',
    });
    expect(JSON.stringify(outcome)).not.toContain('secret-token-value');
  });
});

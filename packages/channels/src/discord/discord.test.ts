import { createSender, deliver, discordChannel, type AlertPost } from '../index';
import { accountAlert, channel, EVERY_PLACEHOLDER, hashtagAlert, likeAlert, meta } from '../test-support/alerts';
import { startFakeDiscord, type FakeDiscord } from '../test-support/fake-discord';
import { discordUsername } from './discord-format';

const POST_URL = 'https://x.com/alice/status/1890000000000000001';

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

import { ChannelConfigError, createSender, deliver, generateSigningSecret, jsonChannel, takesDigests, UnsupportedMessageError, verifyWebhookSignature, type RequestMeta } from '../index';
import { accountAlert, channel, EVERY_PLACEHOLDER, hashtagAlert, likeAlert, meta, richAlert } from '../test-support/alerts';
import { startLocalServer, type LocalServer } from '../test-support/local-server';

const POST_URL = 'https://x.com/alice/status/1890000000000000001';
const secret = generateSigningSecret();

describe('json channel', () => {
  let receiver: LocalServer;
  const sender = createSender({ allowPrivateNetworks: true, timeoutMs: 5000 });
  beforeAll(async () => {
    // A receiver that does what Standard Webhooks asks: verify the raw body before trusting it.
    receiver = await startLocalServer((request) =>
      verifyWebhookSignature(secret, request.headers, request.body).valid ? { status: 204 } : { status: 401, body: 'bad signature' },
    );
  });
  afterAll(async () => {
    sender.close();
    await receiver.close();
  });
  const target = () => channel({ kind: 'json', url: `${receiver.origin}/hooks`, signingSecret: secret });

  it('sends {type, post, text} with Standard Webhooks headers over the exact body', () => {
    const request = jsonChannel.buildRequest(hashtagAlert, channel({ kind: 'json', url: 'https://example.com/h', signingSecret: secret }), meta);
    expect(request.headers).toEqual({
      'content-type': 'application/json',
      'webhook-id': 'dlv_123',
      'webhook-timestamp': '1795310700',
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(JSON.parse(request.body)).toEqual({
      type: 'post',
      post: {
        id: 'post_abc',
        type: 'hashtag',
        source: '#btc',
        hashtag: 'btc',
        account: null,
        matched_by: null,
        author: '@alice',
        author_name: 'Alice Example',
        text: 'Bitcoin just crossed 100k #btc',
        url: POST_URL,
        urls: [],
        media: [],
        quoted: null,
        lang: null,
        edited_at: null,
        deleted: false,
        posted_at: '2026-11-22T01:24:00.000Z',
        detected_at: '2026-11-22T01:24:59.123Z',
      },
      text: `New post on #btc\n@alice · Alice Example\n\nBitcoin just crossed 100k #btc\n\n${POST_URL}`,
    });
    expect(verifyWebhookSignature(secret, request.headers, request.body, { now: meta.timestamp }).valid).toBe(true);
  });

  it('gives a receiver the fields GET /v1/posts has: links, media, the quoted post, language and edit, text as written', () => {
    const { post } = JSON.parse(jsonChannel.buildRequest(richAlert, target(), meta).body);
    expect(post).toEqual({
      id: 'post_rich',
      type: 'hashtag',
      source: '#btc',
      hashtag: 'btc',
      account: null,
      matched_by: null,
      author: '@alice',
      author_name: 'Alice Example',
      text: 'Fish & Chips <3 > 2, I typed &amp; myself. Menu: https://t.co/Menu123 https://t.co/Pic4567',
      url: 'https://x.com/alice/status/1890000000000000002',
      urls: [
        { url: 'https://t.co/Menu123', expanded_url: 'https://example.com/menu_(2026)?a=1&b=2', display_url: 'example.com/menu_(2026)?a=1…' },
        { url: 'https://t.co/Pic4567', expanded_url: 'https://x.com/alice/status/1890000000000000002/photo/1', display_url: 'pic.x.com/Pic4567' },
      ],
      media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/Fish.jpg', preview_image_url: null, width: 1200, height: 675, alt_text: 'Fish & chips on a plate' }],
      quoted: {
        id: '1889999999999999999',
        author: '@bob',
        author_name: 'Bob <Chef>',
        text: 'Chips > fries & that is final',
        url: 'https://x.com/bob/status/1889999999999999999',
      },
      lang: 'en',
      edited_at: '2026-11-22T01:26:00.000Z',
      deleted: false,
      posted_at: '2026-11-22T01:24:00.000Z',
      detected_at: '2026-11-22T01:24:59.123Z',
    });
  });

  it('writes the default card in text as a chat platform would show it: the post as typed, links expanded, quote, edit', () => {
    const { text } = JSON.parse(jsonChannel.buildRequest(richAlert, target(), meta).body);
    expect(text).toBe(
      'New post on #btc\n@alice · Alice Example · edited\n\n' +
        'Fish & Chips <3 > 2, I typed &amp; myself. Menu: https://example.com/menu_(2026)?a=1&b=2 https://x.com/alice/status/1890000000000000002/photo/1\n\n' +
        'Quoting @bob · Bob <Chef>\n> Chips > fries & that is final\nhttps://x.com/bob/status/1889999999999999999\n\n' +
        'https://x.com/alice/status/1890000000000000002',
    );
  });

  it('sends a deleted post with deleted: true and its links and media gone', () => {
    const deleted = { ...richAlert, text: '', author_name: '', urls: [], media: [], deleted: true };
    const { post } = JSON.parse(jsonChannel.buildRequest(deleted, target(), meta).body);
    expect(post).toMatchObject({ text: '', author_name: '', urls: [], media: [], deleted: true });
  });

  it('adds a top-level late: true beside type, post and text to a late alert, and nothing to a timely one', () => {
    const json = channel({ kind: 'json', url: 'https://example.com/h', signingSecret: secret });
    const late = JSON.parse(jsonChannel.buildRequest({ ...hashtagAlert, late: true }, json, meta).body) as Record<string, unknown>;
    expect(Object.keys(late)).toEqual(['type', 'post', 'text', 'late']);
    expect(late.late).toBe(true);
    expect(late.post).toEqual(JSON.parse(jsonChannel.buildRequest(hashtagAlert, json, meta).body).post);
    expect(JSON.parse(jsonChannel.buildRequest(hashtagAlert, json, meta).body)).not.toHaveProperty('late');
  });

  it('keeps webhook-id across retries and signs each attempt with its own timestamp', () => {
    const first = jsonChannel.buildRequest(hashtagAlert, target(), meta);
    const retryMeta: RequestMeta = { messageId: meta.messageId, timestamp: new Date(meta.timestamp.getTime() + 5000) };
    const second = jsonChannel.buildRequest(hashtagAlert, target(), retryMeta);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.headers['webhook-timestamp']).toBe('1795310705');
    expect(second.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
    expect(second.body).toBe(first.body);
  });

  it('marks an account post with account set and hashtag null', () => {
    const { post } = JSON.parse(jsonChannel.buildRequest(accountAlert, target(), meta).body);
    expect(post).toMatchObject({ type: 'account', source: '@alice', hashtag: null, account: 'alice', matched_by: 'author' });
    const mention = JSON.parse(jsonChannel.buildRequest({ ...accountAlert, author: '@fan', matched_by: 'mention' }, target(), meta).body);
    expect(mention.post).toMatchObject({ account: 'alice', author: '@fan', matched_by: 'mention' });
    // A hashtag item routed for an account source it mentions.
    const routed = JSON.parse(jsonChannel.buildRequest({ ...hashtagAlert, source: '@alice', hashtag: '', account: 'alice', matched_by: 'mention' }, target(), meta).body);
    expect(routed.post).toMatchObject({ type: 'hashtag', hashtag: null, account: 'alice', matched_by: 'mention' });
  });

  it('sends engagement alerts as type engagement with kind and parent', () => {
    const body = JSON.parse(jsonChannel.buildRequest(likeAlert, target(), meta).body);
    expect(body.type).toBe('engagement');
    expect(body.post).toMatchObject({ kind: 'like', parent_id: 'post_abc', parent_url: POST_URL, parent_text: 'Bitcoin just crossed 100k #btc' });
    expect(body.text).toBe(`❤️ @bob (Bob) liked a post on #btc\n\n> Bitcoin just crossed 100k #btc\n\n${POST_URL}`);
  });

  it('puts a rendered custom template in text', () => {
    const body = JSON.parse(jsonChannel.buildRequest(hashtagAlert, { ...target(), template: EVERY_PLACEHOLDER }, meta).body);
    expect(body.text).toBe(`#btc|@alice|Alice Example|Bitcoin just crossed 100k #btc|${POST_URL}|btc||{unknown}`);
  });

  it('refuses a digest: a json channel gets one message per feed item', () => {
    expect(() => jsonChannel.buildRequest({ type: 'digest', alerts: [hashtagAlert, accountAlert], total: 5 }, target(), meta)).toThrow(UnsupportedMessageError);
  });

  it('lets only chat platforms fold bursts into digests', () => {
    expect((['discord', 'slack', 'telegram', 'json'] as const).filter(takesDigests)).toEqual(['discord', 'slack', 'telegram']);
  });

  it('refuses to build an unsigned request', () => {
    expect(() => jsonChannel.buildRequest(hashtagAlert, { ...target(), signingSecret: '' }, meta)).toThrow(ChannelConfigError);
  });

  it('delivers to a receiver that verifies the signature of the bytes it got', async () => {
    const now: RequestMeta = { messageId: 'dlv_live', timestamp: new Date() };
    expect(await deliver(hashtagAlert, target(), now, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 204 });
    expect(receiver.received.at(-1)?.headers['webhook-id']).toBe('dlv_live');
  });

  it('fails permanently when the receiver rejects a signature made with a stale secret', async () => {
    const stale = { ...target(), signingSecret: generateSigningSecret() };
    const attempt = await deliver(hashtagAlert, stale, { messageId: 'dlv_x', timestamp: new Date() }, sender);
    expect(attempt).toEqual({ outcome: { outcome: 'permanent', reason: 'the receiver answered 401: bad signature' }, status: 401 });
  });

  it.each([
    [200, { outcome: 'delivered' }],
    [410, { outcome: 'permanent', reason: 'the receiver answered 410', disableChannel: true }],
    [429, { outcome: 'retry', afterMs: 2000, reason: 'the receiver answered 429' }],
    [502, { outcome: 'retry', afterMs: 2000, reason: 'the receiver answered 502' }],
    [503, { outcome: 'retry', afterMs: 2000, reason: 'the receiver answered 503' }],
    [504, { outcome: 'retry', afterMs: 2000, reason: 'the receiver answered 504' }],
    [500, { outcome: 'retry', afterMs: 2000, reason: 'the receiver answered 500' }],
    [400, { outcome: 'permanent', reason: 'the receiver answered 400' }],
    [404, { outcome: 'permanent', reason: 'the receiver answered 404' }],
  ])('interprets %i per Standard Webhooks', (status, outcome) => {
    expect(jsonChannel.interpret({ status, headers: { 'retry-after': '2' }, body: '' })).toEqual(outcome);
  });

  it('reads a Retry-After HTTP date against the answer Date header', () => {
    const headers = { date: 'Sun, 22 Nov 2026 01:25:00 GMT', 'retry-after': 'Sun, 22 Nov 2026 01:26:30 GMT' };
    expect(jsonChannel.interpret({ status: 503, headers, body: '' })).toEqual({ outcome: 'retry', afterMs: 90_000, reason: 'the receiver answered 503' });
  });
});

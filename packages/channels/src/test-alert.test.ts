import { buildTestAlert, channelAdapters, discordChannel, generateSigningSecret, jsonChannel, verifyWebhookSignature } from './index';
import { channel, meta } from './test-support/alerts';

describe('buildTestAlert', () => {
  const alert = buildTestAlert({ now: new Date('2026-11-22T01:25:00.000Z') });

  it('labels the default card as a test alert', () => {
    const body = JSON.parse(discordChannel.buildRequest(alert, channel({ kind: 'discord', url: 'https://discord.com/api/webhooks/1/t' }), meta).body);
    expect(body.embeds[0].title).toBe('Test alert: new post on #hashwatch');
  });

  it('sends json type test, signed like any delivery', () => {
    const secret = generateSigningSecret();
    const request = jsonChannel.buildRequest(alert, channel({ kind: 'json', url: 'https://example.com/h', signingSecret: secret }), meta);
    expect(JSON.parse(request.body)).toMatchObject({ type: 'test', post: { source: '#hashwatch', hashtag: 'hashwatch', account: null } });
    expect(verifyWebhookSignature(secret, request.headers, request.body, { now: meta.timestamp }).valid).toBe(true);
  });

  it('fills a custom template so the user sees their template rendered', () => {
    const request = channelAdapters.telegram.buildRequest(
      alert,
      channel({ kind: 'telegram', botToken: '1:abc', chatId: '1', template: '{source} by {author}: {url}' }),
      meta,
    );
    expect(JSON.parse(request.body).text).toBe('#hashwatch by @hashwatch: https://x.com/search?q=%23hashwatch');
  });
});

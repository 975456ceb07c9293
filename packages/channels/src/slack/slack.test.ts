import { createSender, deliver, slackChannel, type AlertPost } from '../index';
import { channel, EVERY_PLACEHOLDER, hashtagAlert, likeAlert, meta } from '../test-support/alerts';
import { startFakeSlack, type FakeSlack } from '../test-support/fake-slack';

const POST_URL = 'https://x.com/alice/status/1890000000000000001';

describe('slack channel', () => {
  let slack: FakeSlack;
  const sender = createSender({ allowPrivateNetworks: true, timeoutMs: 5000 });
  beforeAll(async () => {
    slack = await startFakeSlack();
  });
  afterAll(async () => {
    sender.close();
    await slack.close();
  });
  const target = () => channel({ kind: 'slack', url: slack.webhookUrl, botName: 'Hashwatch' });

  it('builds the default card as mrkdwn blocks with the bot name in the body', () => {
    const request = slackChannel.buildRequest(hashtagAlert, channel({ kind: 'slack', url: 'https://hooks.slack.com/services/T/B/x' }), meta);
    expect(request).toMatchObject({ method: 'POST', url: 'https://hooks.slack.com/services/T/B/x', headers: { 'content-type': 'application/json' } });
    expect(JSON.parse(request.body)).toEqual({
      text: 'New post on #btc · @alice',
      blocks: [
        { type: 'context', elements: [{ type: 'mrkdwn', text: '*Hashwatch*' }] },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: `*New post on #btc*\n*@alice* · Alice Example\n\nBitcoin just crossed 100k #btc\n\n<${POST_URL}|View post>`,
          },
        },
      ],
    });
  });

  it('escapes only & < > in post text, so it cannot ping a channel or fake a link', () => {
    const alert: AlertPost = { ...hashtagAlert, author_name: 'A&B', text: 'hi <!channel> & <https://evil.example|x> *bold* _it_' };
    const section = JSON.parse(slackChannel.buildRequest(alert, target(), meta).body).blocks[1].text.text;
    expect(section).toBe(
      `*New post on #btc*\n*@alice* · A&amp;B\n\nhi &lt;!channel&gt; &amp; &lt;https://evil.example|x&gt; *bold* _it_\n\n<${POST_URL}|View post>`,
    );
  });

  it('gives a like its own card quoting the liked post', () => {
    const body = JSON.parse(slackChannel.buildRequest(likeAlert, target(), meta).body);
    expect(body.text).toBe('❤️ @bob (Bob) liked a post on #btc');
    expect(body.blocks[1].text.text).toBe(`*❤️ @bob (Bob) liked a post on #btc*\n\n>Bitcoin just crossed 100k #btc\n\n<${POST_URL}|View post>`);
  });

  it('sends the default card when a template renders to nothing for this post (Slack answers no_text)', () => {
    const body = JSON.parse(slackChannel.buildRequest(hashtagAlert, { ...target(), template: '{account}' }, meta).body);
    expect(body).toEqual(JSON.parse(slackChannel.buildRequest(hashtagAlert, target(), meta).body));
    expect(body.blocks[1].text.text).toMatch(/^\*New post on #btc\*/);
  });

  it('renders a custom template with every placeholder, escaping the values', () => {
    const alert: AlertPost = { ...hashtagAlert, text: 'a < b' };
    const body = JSON.parse(slackChannel.buildRequest(alert, { ...target(), template: EVERY_PLACEHOLDER }, meta).body);
    const text = `#btc|@alice|Alice Example|a &lt; b|${POST_URL}|btc||{unknown}`;
    expect(body).toEqual({
      text,
      blocks: [
        { type: 'context', elements: [{ type: 'mrkdwn', text: '*Hashwatch*' }] },
        { type: 'section', text: { type: 'mrkdwn', text } },
      ],
    });
  });

  it('trims a long post to the 3000-character section and keeps the link, counting escapes, and Slack accepts it', async () => {
    const alert: AlertPost = { ...hashtagAlert, text: '&'.repeat(3000) };
    const request = slackChannel.buildRequest(alert, target(), meta);
    const section: string = JSON.parse(request.body).blocks[1].text.text;
    expect(section.length).toBeLessThanOrEqual(3000);
    expect(section.endsWith(`&amp;…\n\n<${POST_URL}|View post>`)).toBe(true);
    expect(slackChannel.interpret(await sender.send(request))).toEqual({ outcome: 'delivered' });
  });

  it('trims a long template rendering and keeps the link', () => {
    const alert: AlertPost = { ...hashtagAlert, text: 'z'.repeat(4000) };
    const text: string = JSON.parse(slackChannel.buildRequest(alert, { ...target(), template: '{text} <{url}|open>' }, meta).body).text;
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text.endsWith(`… <${POST_URL}|open>`)).toBe(true);
  });

  it('builds a digest with one section per alert and a count of the rest', async () => {
    const alerts = Array.from({ length: 11 }, (_, i) => ({ ...hashtagAlert, text: `alert ${i}` }));
    const request = slackChannel.buildRequest({ type: 'digest', alerts }, target(), meta);
    const body = JSON.parse(request.body);
    expect(body.text).toBe('11 new alerts');
    expect(body.blocks).toHaveLength(13);
    expect(body.blocks[2]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: `*#btc* · @alice: alert 0 <${POST_URL}|View post>` } });
    expect(body.blocks[12]).toEqual({ type: 'context', elements: [{ type: 'mrkdwn', text: '…and 1 more' }] });
    expect(slackChannel.interpret(await sender.send(request))).toEqual({ outcome: 'delivered' });
  });

  it('delivers to a live webhook that answers 200 ok', async () => {
    expect(await deliver(hashtagAlert, target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
    expect(slack.messages.at(-1)?.text).toBe('New post on #btc · @alice');
  });

  it('disables the channel when Slack answers 410 channel_is_archived', async () => {
    const result = await sender.send(slackChannel.buildRequest(hashtagAlert, { ...target(), url: slack.archivedWebhookUrl }, meta));
    expect(slackChannel.interpret(result)).toEqual({ outcome: 'permanent', reason: 'Slack answered 410: channel_is_archived', disableChannel: true });
  });

  it('disables the channel when Slack answers 404 no_service', async () => {
    const result = await sender.send(slackChannel.buildRequest(hashtagAlert, { ...target(), url: `${slack.origin}/services/T/B/revoked` }, meta));
    expect(slackChannel.interpret(result)).toEqual({ outcome: 'permanent', reason: 'Slack answered 404: no_service', disableChannel: true });
  });

  it('fails permanently without disabling on 400 invalid_payload', async () => {
    const request = slackChannel.buildRequest(hashtagAlert, target(), meta);
    const result = await sender.send({ ...request, body: '{not json' });
    expect(slackChannel.interpret(result)).toEqual({ outcome: 'permanent', reason: 'Slack answered 400: invalid_payload' });
  });

  it('retries after Retry-After seconds on 429', () => {
    expect(slackChannel.interpret({ status: 429, headers: { 'retry-after': '2' }, body: 'rate_limited' })).toEqual({
      outcome: 'retry',
      afterMs: 2000,
      reason: 'Slack rate limit',
    });
  });

  it('retries a 500 rollup_error', () => {
    expect(slackChannel.interpret({ status: 500, headers: {}, body: 'rollup_error' })).toEqual({
      outcome: 'retry',
      reason: 'Slack answered 500: rollup_error',
    });
  });
});

import { createSender, deliver, slackChannel, type AlertPost } from '../index';
import { channel, EVERY_PLACEHOLDER, hashtagAlert, likeAlert, meta, RICH_POST_URL, richAlert } from '../test-support/alerts';
import { startFakeSlack, type FakeSlack } from '../test-support/fake-slack';
import { startLocalServer, type LocalServer } from '../test-support/local-server';

const POST_URL = 'https://x.com/alice/status/1890000000000000001';

/** mrkdwn with whole links and whole escapes taken out: any "<", ">" or "&" left is a cut link or a split escape. */
function strayMarkup(mrkdwn: string): string[] {
  return mrkdwn.replace(/<[^<>|]+\|[^<>]*>/g, '').replace(/&(?:amp|lt|gt);/g, '').match(/[<>&]/g) ?? [];
}

describe('slack channel', () => {
  let slack: FakeSlack;
  // Where the posts' images are: Slack downloads an image block's image before it posts the message.
  let images: LocalServer;
  const sender = createSender({ allowPrivateNetworks: true, timeoutMs: 5000 });
  beforeAll(async () => {
    slack = await startFakeSlack();
    images = await startLocalServer((request) =>
      request.path.startsWith('/media/') ? { status: 200, headers: { 'content-type': 'image/jpeg' }, body: 'JFIF' } : { status: 404 },
    );
  });
  afterAll(async () => {
    sender.close();
    await slack.close();
    await images.close();
  });
  const image = (name: string) => `${images.origin}/media/${name}`;
  const photoAlert = (url = image('Fish.jpg')): AlertPost => ({ ...richAlert, media: [{ ...richAlert.media![0]!, url }] });
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

  it('links as <expanded_url|display_url>, shows the photo in an image block, the quoted post in a section, and marks the edit', async () => {
    const expected = {
      text: 'New post on #btc · @alice',
      blocks: [
        { type: 'context', elements: [{ type: 'mrkdwn', text: '*Hashwatch*' }] },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text:
              '*New post on #btc*\n*@alice* · Alice Example · _edited_\n\n' +
              'Fish &amp; Chips &lt;3 &gt; 2, I typed &amp;amp; myself. Menu: <https://example.com/menu_(2026)?a=1&amp;b=2|example.com/menu_(2026)?a=1…>' +
              `\n\n<${RICH_POST_URL}|View post>`,
          },
        },
        { type: 'image', image_url: image('Fish.jpg'), alt_text: 'Fish & chips on a plate' },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: 'Quoting *@bob* · Bob &lt;Chef&gt;\n>Chips &gt; fries &amp; that is final\n<https://x.com/bob/status/1889999999999999999|View quoted post>',
          },
        },
      ],
    };
    expect(JSON.parse(slackChannel.buildRequest(photoAlert(), target(), meta).body)).toEqual(expected);
    expect(await deliver(photoAlert(), target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
    expect(slack.messages.at(-1)).toEqual(expected);
  });

  it('shows "Fish & Chips <3 > 2" escaped once as Slack asks: &amp; &lt; &gt;', () => {
    const alert: AlertPost = { ...hashtagAlert, text: 'Fish & Chips <3 > 2 &amp; more' };
    expect(JSON.parse(slackChannel.buildRequest(alert, target(), meta).body).blocks[1].text.text).toBe(
      `*New post on #btc*\n*@alice* · Alice Example\n\nFish &amp; Chips &lt;3 &gt; 2 &amp;amp; more\n\n<${POST_URL}|View post>`,
    );
  });

  it.each([
    ['photo', 'url', 'Photo from the post by @alice'],
    ['video', 'preview_image_url', 'Video preview from the post by @alice'],
    ['animated_gif', 'preview_image_url', 'GIF preview from the post by @alice'],
  ])('gives media of type %s without alt text an alt text Slack accepts', async (type, field, alt) => {
    const media = { type, url: null, preview_image_url: null, [field]: image(`${type}.jpg`), width: 100, height: 100, alt_text: '  ' };
    const alert: AlertPost = { ...richAlert, quoted: null, media: [media] };
    const request = slackChannel.buildRequest(alert, target(), meta);
    expect(JSON.parse(request.body).blocks[2]).toEqual({ type: 'image', image_url: image(`${type}.jpg`), alt_text: alt });
    expect(slackChannel.interpret(await sender.send(request))).toEqual({ outcome: 'delivered' });
  });

  it('resends the card without its image, media link kept, when Slack cannot download the image', async () => {
    const before = slack.received.length;
    expect(await deliver(photoAlert(`${images.origin}/gone.jpg`), target(), meta, sender)).toEqual({ outcome: { outcome: 'delivered' }, status: 200 });
    const [withImage, withoutImage] = slack.received.slice(before).map((request) => JSON.parse(request.body));
    expect(withImage.blocks.map((block: { type: string }) => block.type)).toEqual(['context', 'section', 'image', 'section']);
    expect(withoutImage).toEqual({
      text: 'New post on #btc · @alice',
      blocks: [
        withImage.blocks[0],
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text:
              '*New post on #btc*\n*@alice* · Alice Example · _edited_\n\n' +
              'Fish &amp; Chips &lt;3 &gt; 2, I typed &amp;amp; myself. Menu: <https://example.com/menu_(2026)?a=1&amp;b=2|example.com/menu_(2026)?a=1…> ' +
              `<${RICH_POST_URL}/photo/1|pic.x.com/Pic4567>\n\n<${RICH_POST_URL}|View post>`,
          },
        },
        withImage.blocks[3],
      ],
    });
    expect(slack.messages.at(-1)).toEqual(withoutImage);
  });

  it('fails permanently on invalid_blocks for a message without an image, without sending it twice', async () => {
    const before = slack.received.length;
    // A context block longer than Slack's 3000 characters: nothing to leave out, so no second request.
    const attempt = await deliver(hashtagAlert, { ...target(), botName: 'b'.repeat(3000) }, meta, sender);
    expect(attempt).toEqual({ outcome: { outcome: 'permanent', reason: 'Slack answered 400: invalid_blocks' }, status: 400 });
    expect(slack.received.length).toBe(before + 1);
  });

  it('keeps the trailing media link as a link when there is no image to show', () => {
    const alert: AlertPost = { ...richAlert, media: [], quoted: null, edited_at: null };
    const body = JSON.parse(slackChannel.buildRequest(alert, target(), meta).body);
    expect(body.blocks.map((block: { type: string }) => block.type)).toEqual(['context', 'section']);
    expect(body.blocks[1].text.text).toContain(`|example.com/menu_(2026)?a=1…> <${RICH_POST_URL}/photo/1|pic.x.com/Pic4567>\n\n`);
  });

  it('cuts a long post with links and escapes within 3000 without splitting a link or an escape, and Slack accepts it', async () => {
    const urls = Array.from({ length: 80 }, (_, i) => ({ url: `https://t.co/L${i}`, expanded_url: `https://example.com/?a=${i}&b=<${i}>`, display_url: `example.com/?a=${i}&…` }));
    const alert: AlertPost = { ...hashtagAlert, text: urls.map((url) => `<&> ${url.url}`).join(' & '), urls };
    const request = slackChannel.buildRequest(alert, target(), meta);
    const section: string = JSON.parse(request.body).blocks[1].text.text;
    expect(section.length).toBeLessThanOrEqual(3000);
    expect(section.length).toBeGreaterThan(2900);
    expect(section.endsWith(`…\n\n<${POST_URL}|View post>`)).toBe(true);
    expect(strayMarkup(section)).toEqual([]);
    expect(slackChannel.interpret(await sender.send(request))).toEqual({ outcome: 'delivered' });
  });

  it('cuts a long quoted post within its 3000-character section and keeps its link', async () => {
    const alert: AlertPost = { ...photoAlert(), quoted: { ...richAlert.quoted!, text: '&'.repeat(4000) } };
    const request = slackChannel.buildRequest(alert, target(), meta);
    const quote: string = JSON.parse(request.body).blocks[3].text.text;
    expect(quote.length).toBeLessThanOrEqual(3000);
    expect(quote).toMatch(/^Quoting \*@bob\* · Bob &lt;Chef&gt;\n>(&amp;)+…\n<https:\/\/x\.com\/bob\/status\/1889999999999999999\|View quoted post>$/);
    expect(slackChannel.interpret(await sender.send(request))).toEqual({ outcome: 'delivered' });
  });

  it('keeps the plain card for a deleted post and for an engagement alert', () => {
    const deleted: AlertPost = { ...richAlert, text: '', author_name: '', urls: [], media: [], deleted: true };
    expect(JSON.parse(slackChannel.buildRequest(deleted, target(), meta).body).blocks).toEqual([
      { type: 'context', elements: [{ type: 'mrkdwn', text: '*Hashwatch*' }] },
      { type: 'section', text: { type: 'mrkdwn', text: `*New post on #btc*\n*@alice*\n\n<${RICH_POST_URL}|View post>` } },
    ]);
    const like: AlertPost = { ...likeAlert, urls: richAlert.urls, media: richAlert.media, quoted: richAlert.quoted, edited_at: richAlert.edited_at };
    expect(slackChannel.buildRequest(like, target(), meta).body).toBe(slackChannel.buildRequest(likeAlert, target(), meta).body);
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

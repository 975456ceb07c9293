import { z } from 'zod';
import { waitFor, WebhookReceiver } from '@hashwatch/testing';
import { ChatPlatforms } from './harness/chat-platforms';
import { Suite } from './harness/suite';

// Short, so the scenario runs in seconds: posts published while the scanner is down for DOWN_MS are found
// more than this after they were posted.
const ALERT_MAX_AGE_SECONDS = 5;
const DOWN_MS = 9_000;
const TAG = 'e2ecatchup';
const BOT_TOKEN = '123456:e2e-catchup-token';
const CHAT_ID = '-1001234567890';

const postsSchema = z.object({ data: z.array(z.object({ id: z.string(), text: z.string(), posted_at: z.string().nullable(), detected_at: z.string() })) });
const jsonBodySchema = z.object({ type: z.string(), post: z.object({ id: z.string(), text: z.string() }).passthrough(), text: z.string(), late: z.literal(true).optional() });

/**
 * Catch-up after downtime: the scanner is stopped while X publishes three posts, and started again once they are
 * older than ALERT_MAX_AGE_SECONDS. The feed stores every post; the json channel gets each once flagged late; Discord,
 * Slack and the Telegram bot get none of them, and their deliveries are logged skipped; a post published after the
 * restart reaches every channel, not flagged.
 */
describe('catch-up after the scanner was down', () => {
  let suite: Suite | undefined;
  const json = new WebhookReceiver();
  const chat = new ChatPlatforms(BOT_TOKEN);

  afterAll(async () => {
    await Promise.allSettled([json.close(), chat.close()]);
    await suite?.stop();
  });

  it('stores every post published meanwhile, sends them to json channels once with late: true and to no chat platform', async () => {
    await Promise.all([json.start(), chat.start()]);
    suite = await Suite.start({ env: { ALERT_MAX_AGE_SECONDS: String(ALERT_MAX_AGE_SECONDS), TELEGRAM_API_BASE_URL: chat.origin } });
    const running = suite;
    await running.gateway.createTrack(TAG);
    await running.gateway.call('PUT', '/notifications', {
      webhooks: [
        { url: json.url, format: 'json' },
        { url: chat.discordUrl, format: 'discord' },
        { url: chat.slackUrl, format: 'slack' },
      ],
      bot: { token: BOT_TOKEN, chat_id: CHAT_ID },
    });
    const before = (await running.xsim.requests('search_recent')).length;
    await waitFor(async () => (await running.xsim.requests('search_recent')).length >= before + 2, 30_000, 'the scanner to search the new track');

    for (const scanner of running.running('scanner')) await scanner.stop();
    const old = [];
    for (let i = 0; i < 3; i += 1) old.push(await running.xsim.injectPost({ author: 'e2ecatchup', text: `while down ${i} #${TAG}`, lang: 'en' }));
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
    await running.startWorker('scanner');

    const feedTexts = async () => postsSchema.parse(await running.gateway.call('GET', `/posts?hashtag=${TAG}&limit=100`)).data;
    await waitFor(async () => (await feedTexts()).length >= 3, 30_000, 'the feed to catch up');
    const fresh = await running.xsim.injectPost({ author: 'e2ecatchup', text: `after restart #${TAG}`, lang: 'en' });
    await waitFor(() => json.accepted().length >= 4, 30_000, 'four json alerts');
    await waitFor(() => Object.values(chat.mentioning('after restart')).every((count) => count >= 1), 30_000, 'the fresh alert on every chat platform');
    // Anything more that was coming has had time to come.
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    // The feed has every post, each once; the old ones were detected past the cutoff.
    const feed = await feedTexts();
    expect(feed.map((item) => item.text).sort()).toEqual([...old.map((post) => post.text), fresh.text].sort());
    const itemOf = (text: string) => feed.find((item) => item.text === text)!;
    for (const post of old) {
      const item = itemOf(post.text);
      expect(Date.parse(item.detected_at) - Date.parse(item.posted_at!)).toBeGreaterThan(ALERT_MAX_AGE_SECONDS * 1000);
    }

    // json: each item once, the old ones flagged late, the fresh one not.
    const bodies = json.accepted().map((request) => jsonBodySchema.parse(JSON.parse(request.body)));
    expect(bodies.map((body) => body.post.id).sort()).toEqual(feed.map((item) => item.id).sort());
    for (const post of old) expect(bodies.find((body) => body.post.text === post.text)?.late).toBe(true);
    expect(bodies.find((body) => body.post.text === fresh.text)).not.toHaveProperty('late');

    // Chat platforms: the fresh post once each, none of the old ones.
    expect(chat.mentioning('after restart')).toEqual({ discord: 1, slack: 1, telegram: 1 });
    expect(chat.mentioning('while down')).toEqual({ discord: 0, slack: 0, telegram: 0 });

    // The delivery log accounts for every (channel, item): the old items' chat deliveries skipped, none pending. A
    // receiver has a message before its delivery is recorded (with the run's next claim, or as it ends).
    let deliveries = await running.gateway.deliveries();
    await waitFor(async () => {
      deliveries = await running.gateway.deliveries();
      return deliveries.every((delivery) => delivery.status !== 'pending');
    }, 10_000, 'no delivery pending');
    const jsonChannel = (await running.gateway.notifications()).find((webhook) => webhook.url === json.url)!.id;
    const oldIds = new Set(old.map((post) => itemOf(post.text).id));
    const chatOfOld = deliveries.filter((delivery) => oldIds.has(delivery.feed_item_id) && delivery.channel_id !== jsonChannel);
    expect(chatOfOld).toHaveLength(9);
    expect(chatOfOld.every((delivery) => delivery.status === 'skipped' && delivery.late && delivery.attempts === 0)).toBe(true);
    expect(deliveries.filter((delivery) => delivery.status === 'pending')).toEqual([]);
    expect(deliveries.filter((delivery) => delivery.status === 'delivered')).toHaveLength(3 + 4);
  });
});

import { z } from 'zod';
import { waitFor, WebhookReceiver } from '@hashwatch/testing';
import { Suite } from './harness/suite';

const jsonPostSchema = z.object({ type: z.string(), post: z.looseObject({ id: z.string(), text: z.string(), account: z.string().nullable(), matched_by: z.string().nullable() }) });
const feedSchema = z.object({ data: z.array(z.looseObject({ id: z.string(), text: z.string(), type: z.string(), matched_by: z.string().nullable() })) });

/**
 * Signal controls through the built apps (x-sim, gateway, scanner, notifier as processes): a hashtag track with
 * filters and an account track with its mentions, set over the API; a json receiver counts what reaches it by
 * feed item id. Only the posts the filters pass and the mentions arrive, each once, saying how they matched.
 */
describe('filters and mentions against the built apps', () => {
  let suite: Suite | undefined;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    suite = await Suite.start();
  }, 120_000);

  afterAll(async () => {
    await suite?.stop();
    await receiver.close();
  });

  it('delivers what the filters pass and the mentions of a watched account, each once, and nothing else', async () => {
    if (!suite) throw new Error('the apps did not start');
    const { gateway, xsim } = suite;
    await xsim.createUser({ username: 'e2ebrand' });
    await xsim.createUser({ username: 'e2ebigdesk', verified: true, followers_count: 50_000 });
    await xsim.createUser({ username: 'e2esmallfry', followers_count: 12 });
    await gateway.call('POST', '/tracks', { hashtag: 'e2esignal', filters: { keywords_any: ['etf', '"all time high"'], verified_only: true } });
    await gateway.call('POST', '/accounts', { username: 'e2ebrand', include_mentions: true });
    await gateway.call('PUT', '/notifications', { webhooks: [{ url: receiver.url, format: 'json' }], bot: null });

    const wanted = {
      etf: await xsim.injectPost({ author: 'e2ebigdesk', text: 'The #e2esignal ETF & its flows' }),
      own: await xsim.injectPost({ author: 'e2ebrand', text: 'we shipped today' }),
      mention: await xsim.injectPost({ author: 'e2esmallfry', text: 'hello @e2ebrand, nice' }),
    };
    const unwanted = [
      await xsim.injectPost({ author: 'e2esmallfry', text: '#e2esignal ETF from a small account' }),
      await xsim.injectPost({ author: 'e2ebigdesk', text: '#e2esignal without the word' }),
      await xsim.injectPost({ author: 'e2ebigdesk', text: '#e2esignal etfs are another word' }),
    ];
    const delivered = () =>
      receiver.accepted().flatMap((request) => {
        const parsed = jsonPostSchema.safeParse(JSON.parse(request.body));
        return parsed.success && parsed.data.type === 'post' ? [parsed.data.post] : [];
      });
    await waitFor(() => delivered().length >= 3, 30_000, 'the three wanted posts at the receiver');
    // Three more scan cycles (1 s each): anything unwanted would have arrived by now.
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    const posts = delivered();
    const texts = posts.map((post) => post.text).sort();
    expect(texts).toEqual(['The #e2esignal ETF & its flows', 'hello @e2ebrand, nice', 'we shipped today']);
    expect(new Set(posts.map((post) => post.id)).size).toBe(posts.length);
    const byText = Object.fromEntries(posts.map((post) => [post.text, [post.account, post.matched_by]]));
    expect(byText).toEqual({
      'The #e2esignal ETF & its flows': [null, null],
      'we shipped today': ['e2ebrand', 'author'],
      'hello @e2ebrand, nice': ['e2ebrand', 'mention'],
    });
    for (const post of unwanted) expect(texts).not.toContain(post.text);

    const feed = feedSchema.parse(await gateway.call('GET', '/posts'));
    expect(Object.fromEntries(feed.data.map((item) => [item.text, item.matched_by]))).toEqual({
      'The #e2esignal ETF & its flows': null,
      'we shipped today': 'author',
      'hello @e2ebrand, nice': 'mention',
    });
    const unwantedDelivered = unwanted.filter((post) => texts.includes(post.text)).length;
    process.stdout.write(`${JSON.stringify({ e2e: 'signal-controls', delivered: posts.length, wanted: Object.keys(wanted).length, unwanted_delivered: unwantedDelivered })}\n`);
  });
});

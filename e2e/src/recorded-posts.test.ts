import { z } from 'zod';
import { verifyStandardSignature, waitFor, WebhookReceiver } from '@hashwatch/testing';
import { ChatPlatforms, discordSchema, discordShown, escapedOnce, slackSchema, slackShown, telegramSchema, telegramShown, type ChatMessage, type Platform } from './harness/chat-platforms';
import {
  ampersandStretch,
  cardImage,
  expectedPost,
  longPostAnswer,
  recordedAnswer,
  recordedAnswerSchema,
  shownBody,
  type ExpectedPost,
  type RecordedAnswer,
  type UserName,
  unescapeOnce,
} from './harness/recorded-posts';
import { Suite } from './harness/suite';

const BOT_TOKEN = '123456:e2e-recorded-token';
const CHAT_ID = '-1001234567890';
// The home timeline was recorded with default fields: no author_id, so its posts are by this account.
const HOME_AUTHOR = { username: 'e2ehometimeline', name: 'Home & Timeline' };
const LONG_POST_ID = '1745000000000000001';

// The gateway's and the platforms' bodies, as far as the checks read them. Loose items: the json payload is
// compared with every field the item has.
const feedItemSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  hashtag: z.string().nullable(),
  account: z.string().nullable(),
  sources: z.array(z.string()),
  author: z.string(),
  author_name: z.string(),
  text: z.string(),
  url: z.string(),
  urls: z.array(z.object({ url: z.string(), expanded_url: z.string(), display_url: z.string() })),
  media: z.array(
    z.object({
      type: z.string(),
      url: z.string().nullable(),
      preview_image_url: z.string().nullable(),
      width: z.number().nullable(),
      height: z.number().nullable(),
      alt_text: z.string().nullable(),
    }),
  ),
  quoted: z.unknown(),
  lang: z.string().nullable(),
  edited_at: z.string().nullable(),
  deleted: z.boolean(),
  posted_at: z.string().nullable(),
  detected_at: z.string(),
});
type FeedItem = z.infer<typeof feedItemSchema>;
const feedPageSchema = z.object({ data: z.array(feedItemSchema) });
const jsonAlertSchema = z.object({ type: z.string(), post: z.record(z.string(), z.unknown()), text: z.string() });
/** The message is about this post: it links the post's page (`…/status/<id>`, and not a longer id). */
const linksPost = (body: string, xPostId: string) => new RegExp(`/status/${xPostId}(?![0-9])`).test(body);

/**
 * Recorded X answers replayed through the simulator, as users meet them: escaped text, a retweet cut at 140
 * characters with its original in includes, t.co links, a photo and a video, cashtags, a home timeline of
 * escapes and retweets, and a long post in X's documented note_tweet shape. Each post is checked by its id in
 * the feed (as its author wrote it, with its links, media and language as recorded) and in every channel: the
 * signed json payload carries the feed item, Discord, Slack and the Telegram bot show the text escaped once for
 * their own markup, with the image. Then an edit updates its item without a second alert, and a deletion
 * empties its item once the engagement poller looks again.
 */
describe('recorded X answers through the whole system', () => {
  let suite: Suite | undefined;
  const json = new WebhookReceiver();
  const chat = new ChatPlatforms(BOT_TOKEN);
  let jsonSecret = '';
  let expected: ExpectedPost[] = [];
  const feedBefore = new Map<string, FeedItem>();
  let longPost: ExpectedPost;
  let cashtagPost: ExpectedPost;
  const started = Date.now();

  afterAll(async () => {
    await Promise.allSettled([json.close(), chat.close()]);
    await suite?.stop();
    process.stdout.write(`${JSON.stringify({ e2e: 'recorded-posts', posts: expected.length, run_ms: Date.now() - started })}\n`);
  });

  const feed = async (): Promise<Map<string, FeedItem>> => {
    const page = feedPageSchema.parse(await suite!.gateway.call('GET', '/posts?limit=100'));
    return new Map(page.data.map((item) => [item.id, item]));
  };
  /** x post id → feed item id, for the posts the account stored (engagement items aside). */
  const itemIds = async (): Promise<Map<string, string>> =>
    new Map((await suite!.feedItems()).filter((row) => row.type !== 'engagement').map((row) => [row.x_post_id, row.id]));
  const messagesAbout = (platform: Platform, xPostIds: string[]): ChatMessage[] =>
    chat.of(platform).filter((message) => xPostIds.some((id) => linksPost(message.body, id)));
  const jsonAlertsFor = (itemId: string) => json.accepted().filter((request) => request.itemId === itemId);
  /** Per post label, what `pick` finds for it. */
  const perPost = <T>(pick: (post: ExpectedPost) => T): Record<string, T> => Object.fromEntries(expected.map((post) => [post.label, pick(post)]));

  beforeAll(async () => {
    await Promise.all([json.start(), chat.start()]);
    // The recordings date from when X's search still returned retweets (it stopped on 2026-05-04); the simulator
    // plays that, so the recorded retweets reach the scanner as they reached clients then.
    suite = await Suite.start({ env: { TELEGRAM_API_BASE_URL: chat.origin, X_SIM_SEARCH_INCLUDES_RETWEETS: 'true' } });
    const running = suite;

    const answers = {
      retweet: recordedAnswer('twarc__tweets_lookup_retweet_mentions_2023-01-05'),
      media: recordedAnswer('twarc__tweets_lookup_media_2023-01-05'),
      urls: recordedAnswer('twarc__tweets_lookup_many_urls_2023-01-05'),
      geo: recordedAnswer('twarc__tweets_lookup_geo_2022-03-16_b'),
      cashtags: recordedAnswer('twarc__tweets_lookup_cashtags_2023-01-05'),
      home: recordedAnswer('tweepy__home_timeline'),
    };
    const long = longPostAnswer(LONG_POST_ID, 'e2elongpost');
    const parsed = Object.fromEntries(Object.entries({ ...answers, long: long.body }).map(([key, body]) => [key, recordedAnswerSchema.parse(body)])) as Record<
      keyof typeof answers | 'long',
      RecordedAnswer
    >;
    // Every user the recordings describe, by recorded id (the first description of a handle wins).
    const names = new Map<string, UserName>();
    for (const answer of Object.values(parsed)) for (const user of answer.includes?.users ?? []) if (!names.has(user.id)) names.set(user.id, user);
    const userNamed = (handle: string) => [...names].find(([, user]) => user.username === handle)!;

    // Tracked handles must be known to X before the scanner resolves them; the replay then finds them by handle.
    const handles = ['BaldManGamer', 'IgorBrigadir', 'uiuxadrian'];
    for (const handle of handles) {
      const [id, user] = userNamed(handle);
      await running.xsim.createUser({ id, username: user.username, name: user.name });
    }
    await running.xsim.createUser(HOME_AUTHOR);
    // @j2bryson, mentioned by the recorded reply with &amp;, watched with its mentions before the reply's author is
    // watched (so the item is its mention), and a filter only the unescaped reply passes: the recording also holds
    // j2bryson's own post (included as the post replied to), which the filter keeps out.
    const [mentionedId, mentioned] = userNamed('j2bryson');
    await running.xsim.createUser({ id: mentionedId, username: mentioned.username, name: mentioned.name });
    await running.gateway.call('POST', '/accounts', {
      username: 'j2bryson', include_mentions: true, exclude_replies: false, filters: { keywords_all: ['"fields & expansions"'] },
    });

    // Sources picked from what the recorded posts carry: the cashtag $NIO, hashtags of the home timeline and the
    // long post, the authors of the retweet, the video, the reply with &amp; and the linked reply thread.
    await running.gateway.call('POST', '/tracks', { hashtag: 'NIO', track_engagement: true });
    await running.gateway.call('POST', '/tracks', { hashtag: 'TwitterAPI' });
    await running.gateway.call('POST', '/tracks', { hashtag: 'Tweet', exclude_retweets: false });
    await running.gateway.call('POST', '/tracks', { hashtag: 'e2elongpost' });
    for (const handle of handles) await running.gateway.call('POST', '/accounts', { username: handle, exclude_replies: false });
    const saved = z
      .object({ webhooks: z.array(z.object({ url: z.string(), signing_secret: z.string() })) })
      .parse(
        await running.gateway.call('PUT', '/notifications', {
          webhooks: [
            { url: json.url, format: 'json' },
            { url: chat.discordUrl, format: 'discord' },
            { url: chat.slackUrl, format: 'slack' },
          ],
          bot: { token: BOT_TOKEN, chat_id: CHAT_ID },
        }),
      );
    jsonSecret = saved.webhooks.find((webhook) => webhook.url === json.url)!.signing_secret;

    // Every source is in a search before anything is published (the handles resolved, the tags packed).
    const before = (await running.xsim.requests('search_recent')).length;
    const terms = ['#nio', '$nio', '#twitterapi', '#tweet', '#e2elongpost', 'from:j2bryson or @j2bryson', ...handles.map((handle) => `from:${handle.toLowerCase()}`)];
    await waitFor(
      async () => {
        const queries = (await running.xsim.requests('search_recent')).slice(before).map((request) => String(request.query.query ?? '').toLowerCase());
        return terms.every((term) => queries.some((query) => query.includes(term)));
      },
      30_000,
      'a search of every source',
    );

    const replays = {
      retweet: await running.xsim.replay(answers.retweet),
      media: await running.xsim.replay(answers.media),
      urls: await running.xsim.replay(answers.urls),
      geo: await running.xsim.replay(answers.geo),
      cashtags: await running.xsim.replay(answers.cashtags),
      home: await running.xsim.replay(answers.home, HOME_AUTHOR.username),
      long: await running.xsim.replay(long.body),
    };
    const post = (label: string, key: keyof typeof replays, recordedId: string) => expectedPost(label, parsed[key], recordedId, replays[key], names, HOME_AUTHOR);
    expected = [
      post('retweet cut at 140, original in includes', 'retweet', '1589681856941002753'),
      post('video', 'media', '1558553189766631429'),
      post('reply with t.co links', 'urls', '1610692575752601600'),
      post('thread start the reply answers', 'urls', '1610623087061471232'),
      post('reply with &amp; and a link', 'geo', '1501963039859363843'),
      post('photo and cashtags', 'cashtags', '1611077073803841538'),
      post('home timeline: #TwitterAPI guide', 'home', '1577359203047546880'),
      post('home timeline: #TwitterAPI with &amp;', 'home', '1576997017791758336'),
      post('home timeline: retweet with &lt;', 'home', '1578341223664062465'),
      post('long post (note_tweet)', 'long', LONG_POST_ID),
    ];
    longPost = expected.find((candidate) => candidate.recordedId === LONG_POST_ID)!;
    cashtagPost = expected.find((candidate) => candidate.recordedId === '1611077073803841538')!;
    expect(longPost.text).toBe(long.written);

    // Every post stored, and every channel has a message about each; on a time-out, what is missing where.
    let missing: string[] = [];
    await waitFor(
      async () => {
        const ids = await itemIds();
        missing = expected.flatMap((candidate) => {
          const itemId = ids.get(candidate.xPostId);
          if (!itemId) return [`${candidate.label}: not stored`];
          const channels: string[] = (['discord', 'slack', 'telegram'] as const).filter((platform) => messagesAbout(platform, [candidate.xPostId]).length === 0);
          if (jsonAlertsFor(itemId).length === 0) channels.unshift('json');
          return channels.length > 0 ? [`${candidate.label}: not on ${channels.join(', ')}`] : [];
        });
        return missing.length === 0;
      },
      60_000,
      'every post stored and on every channel',
      250,
    ).catch((error: Error) => {
      throw new Error(`${error.message}:\n${missing.join('\n')}`);
    });
    const ids = await itemIds();
    const items = await feed();
    for (const candidate of expected) feedBefore.set(candidate.xPostId, items.get(ids.get(candidate.xPostId)!)!);
  });

  it('stores each replayed post once, as its author wrote it, with its links and language as recorded', async () => {
    const ids = await itemIds();
    expect([...ids.keys()].sort()).toEqual(expected.map((post) => post.xPostId).sort());
    const item = (post: ExpectedPost) => feedBefore.get(post.xPostId)!;
    expect(perPost((post) => item(post).text)).toEqual(perPost((post) => post.text));
    expect(perPost((post) => item(post).urls)).toEqual(perPost((post) => post.urls));
    expect(perPost((post) => item(post).quoted)).toEqual(perPost(() => null));
    // The home timeline was recorded without lang: there the feed has what X answers now.
    const langs = Object.fromEntries(await Promise.all(expected.map(async (post) => [post.label, post.lang ?? (await suite!.xsim.post(post.xPostId)).lang ?? null] as const)));
    expect(perPost((post) => item(post).lang)).toEqual(langs);
    expect(perPost((post) => [item(post).author, item(post).author_name])).toEqual(perPost((post) => [post.author, post.authorName]));
    expect(perPost((post) => item(post).url.endsWith(`/status/${post.xPostId}`))).toEqual(perPost(() => true));
    expect(perPost((post) => [item(post).edited_at, item(post).deleted])).toEqual(perPost(() => [null, false]));

    // What X escaped is unescaped exactly once; the retweets' originals and the long post are whole.
    const retweet = expected.find((post) => post.recordedId === '1589681856941002753')!;
    expect(item(retweet).text).toMatch(/^RT @S3NT1N3L17: Looking for gaming mutuals/);
    expect(item(retweet).text).toMatch(/#gaming https:\/\/t\.co\/X8D4rbk47i https:\/\/t\.co\/nyzCbH5jW2$/);
    expect(item(expected.find((post) => post.recordedId === '1501963039859363843')!).text).toContain('Fields & Expansions');
    expect(item(expected.find((post) => post.recordedId === '1578341223664062465')!).text).toContain('via @Twitter < great feature');
    expect(item(longPost).text.length).toBeGreaterThan(280);
    expect(expected.filter((post) => /&(amp|lt|gt);/.test(item(post).text)).map((post) => post.label)).toEqual([]);
  });

  it('detects the recorded reply as a mention of the handle it answers, through a filter on its unescaped text', async () => {
    const reply = feedBefore.get(expected.find((post) => post.recordedId === '1501963039859363843')!.xPostId)!;
    expect(reply).toMatchObject({ type: 'account', account: 'j2bryson', matched_by: 'mention' });
    expect(reply.sources).toEqual(['@j2bryson', '@igorbrigadir']);
    const payload = jsonAlertSchema.parse(JSON.parse(jsonAlertsFor(reply.id)[0]!.body));
    expect(payload.post).toMatchObject({ account: 'j2bryson', matched_by: 'mention' });
    // j2bryson's own post, replayed from the recording's includes, does not pass the filter: nothing by @j2bryson is stored.
    expect([...feedBefore.values()].filter((item) => item.author.toLowerCase() === '@j2bryson')).toEqual([]);
    expect((await feed()).size).toBe(expected.length);
  });

  it('stores each post with its media as recorded, a retweet with its original\'s', () => {
    expect(perPost((post) => feedBefore.get(post.xPostId)!.media)).toEqual(perPost((post) => post.media));
  });

  it('sends each post to the json webhook once, signed, with the feed item as its post', () => {
    for (const post of expected) {
      const item = feedBefore.get(post.xPostId)!;
      const alerts = jsonAlertsFor(item.id);
      expect({ post: post.label, alerts: alerts.length }).toEqual({ post: post.label, alerts: 1 });
      expect({ post: post.label, verified: verifyStandardSignature(jsonSecret, alerts[0]!) }).toEqual({ post: post.label, verified: true });
      const payload = jsonAlertSchema.parse(JSON.parse(alerts[0]!.body));
      expect(payload.type).toBe('post');
      const shared = Object.keys(payload.post).filter((key) => key in item);
      expect(shared).toEqual(
        expect.arrayContaining(['id', 'type', 'hashtag', 'account', 'author', 'author_name', 'text', 'url', 'urls', 'media', 'quoted', 'lang', 'edited_at', 'deleted', 'posted_at', 'detected_at']),
      );
      const fromItem = Object.fromEntries(shared.map((key) => [key, (item as Record<string, unknown>)[key]]));
      expect({ post: post.label, payload: Object.fromEntries(shared.map((key) => [key, payload.post[key]])) }).toEqual({ post: post.label, payload: fromItem });
    }
  });

  it('shows each post on Discord with its text as written, links as [display](expanded) and the image', () => {
    for (const post of expected) {
      const messages = messagesAbout('discord', [post.xPostId]);
      expect({ post: post.label, messages: messages.length }).toEqual({ post: post.label, messages: 1 });
      const embed = discordSchema.parse(messages[0]!.json).embeds[0]!;
      const image = cardImage(post.media);
      expect({ post: post.label, image: embed.image?.url ?? null }).toEqual({ post: post.label, image });
      const shown = discordShown(embed.description);
      expect({ post: post.label, shows: shown.text.includes(shownBody(post, image !== null)) }).toEqual({ post: post.label, shows: true });
      // Discord shows `&` and `<` as they are: an HTML escape would show as written.
      expect({ post: post.label, escapes: /&(amp|lt|gt);/.exec(embed.description)?.[0] ?? null }).toEqual({ post: post.label, escapes: null });
      for (const url of post.urls.filter((candidate) => shownBody(post, image !== null).includes(candidate.display_url))) {
        expect({ post: post.label, link: shown.links.some((link) => link.label === url.display_url && link.url === url.expanded_url) }).toEqual({ post: post.label, link: true });
      }
    }
  });

  it('shows each post on Slack with & < > escaped once, links as <expanded|display> and an image block', () => {
    for (const post of expected) {
      const messages = messagesAbout('slack', [post.xPostId]);
      expect({ post: post.label, messages: messages.length }).toEqual({ post: post.label, messages: 1 });
      const { blocks } = slackSchema.parse(messages[0]!.json);
      const image = cardImage(post.media);
      const images = blocks.flatMap((block) => (block.type === 'image' ? [block.image_url] : []));
      expect({ post: post.label, images }).toEqual({ post: post.label, images: image ? [image] : [] });
      const section = blocks.flatMap((block) => (block.type === 'section' ? [block.text.text] : [])).join('\n');
      expect({ post: post.label, escaping: escapedOnce(section, ['amp', 'lt', 'gt']) }).toEqual({ post: post.label, escaping: [] });
      const shown = slackShown(section);
      expect({ post: post.label, shows: shown.text.includes(shownBody(post, image !== null)) }).toEqual({ post: post.label, shows: true });
      for (const url of post.urls.filter((candidate) => shownBody(post, image !== null).includes(candidate.display_url))) {
        const written = `<${url.expanded_url.replace(/&/g, '&amp;')}|${url.display_url.replace(/&/g, '&amp;')}>`;
        expect({ post: post.label, link: section.includes(written) }).toEqual({ post: post.label, link: true });
      }
      const stretch = ampersandStretch(post.text);
      if (stretch) expect({ post: post.label, written: section.includes(stretch.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')) }).toEqual({ post: post.label, written: true });
    }
  });

  it('sends each post to the Telegram bot: sendPhoto with an HTML caption when it has an image, sendMessage otherwise, & escaped once', () => {
    for (const post of expected) {
      const messages = messagesAbout('telegram', [post.xPostId]);
      expect({ post: post.label, messages: messages.length }).toEqual({ post: post.label, messages: 1 });
      const message = messages[0]!;
      const body = telegramSchema.parse(message.json);
      const image = cardImage(post.media);
      expect({ post: post.label, method: message.method, photo: body.photo ?? null }).toEqual({
        post: post.label,
        method: image ? 'sendPhoto' : 'sendMessage',
        photo: image,
      });
      const html = (image ? body.caption : body.text) ?? '';
      expect({ post: post.label, escaping: escapedOnce(html, ['amp', 'lt', 'gt', 'quot']) }).toEqual({ post: post.label, escaping: [] });
      const shown = telegramShown(html);
      expect({ post: post.label, shows: shown.text.includes(shownBody(post, image !== null)) }).toEqual({ post: post.label, shows: true });
      for (const url of post.urls.filter((candidate) => shownBody(post, image !== null).includes(candidate.display_url))) {
        expect({ post: post.label, link: shown.links.some((link) => link.label === url.display_url && link.url === url.expanded_url) }).toEqual({ post: post.label, link: true });
      }
      const stretch = ampersandStretch(post.text);
      if (stretch) expect({ post: post.label, written: html.includes(stretch.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')) }).toEqual({ post: post.label, written: true });
    }
    // The photo post and the long post with a photo go as photos; the video as its still.
    expect(chat.of('telegram').filter((message) => message.method === 'sendPhoto').length).toBe(expected.filter((post) => cardImage(post.media)).length);
    expect(expected.filter((post) => cardImage(post.media)).map((post) => post.label).sort()).toEqual(['long post (note_tweet)', 'photo and cashtags', 'video'].sort());
  });

  it('shows an edit of a delivered post in its item, with edited_at, and sends no second alert', async () => {
    const running = suite!;
    const itemId = feedBefore.get(longPost.xPostId)!.id;
    const written = '#e2elongpost Edited: fish & chips only, a short post now <3';
    const edit = await running.xsim.editPost(longPost.xPostId, written);
    expect(edit.id).not.toBe(longPost.xPostId);
    // The edit keeps the post's link, which X adds back to the text as a t.co link: the new version as X sends it.
    const newText = unescapeOnce(edit.text);
    expect(newText.startsWith(written)).toBe(true);

    await waitFor(async () => (await feed()).get(itemId)?.edited_at != null, 30_000, 'the edit in the feed');
    const item = (await feed()).get(itemId)!;
    expect(item).toMatchObject({ id: itemId, text: newText, deleted: false, posted_at: feedBefore.get(longPost.xPostId)!.posted_at });
    expect(Date.parse(item.edited_at!)).toBeGreaterThan(Date.parse(item.detected_at));
    expect(item.url.endsWith(`/status/${edit.id}`)).toBe(true);
    expect([...(await itemIds()).values()].filter((id) => id === itemId)).toHaveLength(1);

    // Scans and routing have had time to send anything they were going to send.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const versions = [longPost.xPostId, edit.id];
    expect({
      json: jsonAlertsFor(itemId).length,
      discord: messagesAbout('discord', versions).length,
      slack: messagesAbout('slack', versions).length,
      telegram: messagesAbout('telegram', versions).length,
    }).toEqual({ json: 1, discord: 1, slack: 1, telegram: 1 });
    expect(chat.mentioning('only, a short post')).toEqual({ discord: 0, slack: 0, telegram: 0 });
    const deliveries = (await running.gateway.deliveries()).filter((delivery) => delivery.feed_item_id === itemId);
    expect(deliveries).toHaveLength(4);
  });

  it('empties the item of an engagement-tracked post deleted on X once the poller looks again', async () => {
    const running = suite!;
    const before = feedBefore.get(cashtagPost.xPostId)!;
    expect(before.urls.length).toBeGreaterThan(0);
    expect(before.media.length).toBeGreaterThan(0);
    const lookups = (await running.xsim.requests('posts_lookup')).length;
    await running.xsim.deletePost(cashtagPost.xPostId);

    await waitFor(async () => (await feed()).get(before.id)?.deleted === true, 30_000, 'the deletion in the feed');
    // The poller's refresh (a lookup by id) found it gone.
    expect((await running.xsim.requests('posts_lookup')).length).toBeGreaterThan(lookups);
    const item = (await feed()).get(before.id)!;
    expect(item).toMatchObject({ id: before.id, deleted: true, text: '', author_name: '', urls: [], media: [], quoted: null });
    expect({ posted_at: item.posted_at, detected_at: item.detected_at, author: item.author }).toEqual({
      posted_at: before.posted_at,
      detected_at: before.detected_at,
      author: before.author,
    });
  });
});

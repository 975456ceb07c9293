import { readdirSync } from 'node:fs';
import { normalizePostLookup } from './normalize-response';
import { RECORDED_DIR, recordedBody } from './test-support/recorded';
import { postListResponseSchema } from './x-response.schema';
import type { XPost } from './x-types';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const lookup = (body: unknown) => normalizePostLookup(postListResponseSchema.parse(body));
const slice = (text: string, entity: { start: number; end: number }) => Array.from(text).slice(entity.start, entity.end).join('');
const unescapedOnce = (text: string) => text.replace(/&(amp|lt|gt);/g, (escape) => ({ '&amp;': '&', '&lt;': '<', '&gt;': '>' })[escape] as string);

/** Every recorded answer holding posts (data an array of objects with id and text). */
const postAnswers = readdirSync(RECORDED_DIR)
  .filter((file) => file.endsWith('.json') && !file.endsWith('.meta.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .filter((name) => {
    const data = recordedBody(name).data;
    return Array.isArray(data) && data.length > 0 && data.every((post: Json) => typeof post?.text === 'string' && typeof post?.id === 'string');
  });

describe('the X client on answers recorded from the live API', () => {
  it('finds the recordings', () => {
    expect(postAnswers.length).toBeGreaterThanOrEqual(20);
  });

  it.each(postAnswers)('%s: every post parses, with X\'s escaping undone exactly once', (name) => {
    const body = recordedBody(name);
    const result = lookup(body);
    expect(result.malformed).toEqual([]);
    const recorded = new Map((body.data as Json[]).map((post) => [post.id as string, post]));
    expect(result.posts.map((post) => post.id)).toEqual([...recorded.keys()]);
    for (const post of result.posts) {
      const wire = recorded.get(post.id) as Json;
      if (post.isRetweet && !post.text.endsWith('…')) continue; // a whole original, checked below
      expect(post.text).toBe(unescapedOnce(wire.note_tweet?.text ?? wire.text));
    }
  });

  it.each(postAnswers)('%s: every entity points at its own text in the unescaped post', (name) => {
    for (const post of lookup(recordedBody(name)).posts) {
      for (const tag of post.hashtags) expect(slice(post.text, tag).toLowerCase()).toMatch(new RegExp(`^[#＃]${tag.tag.toLowerCase()}$`, 'u'));
      for (const tag of post.cashtags) expect(slice(post.text, tag).toLowerCase()).toBe(`$${tag.tag.toLowerCase()}`);
      for (const mention of post.mentions) expect(slice(post.text, mention).toLowerCase()).toBe(`@${(mention.username ?? '').toLowerCase()}`);
      for (const url of post.urls) expect(slice(post.text, url)).toBe(url.url);
    }
  });

  it('reads the author\'s verification and followers (verified_type business; a recorded unverified author)', () => {
    const [business] = lookup(recordedBody('twarc__tweets_lookup_verified_type_2023-01-06')).posts as [XPost];
    expect(business.author).toMatchObject({ username: 'TwitterDev', verified: true, followersCount: 556601 });
    const [plain] = lookup(recordedBody('twarc__tweets_lookup_cashtags_2023-01-05')).posts as [XPost];
    expect(plain.author).toMatchObject({ verified: false, followersCount: 809 });
  });

  it('reads verified_type blue as verified and keeps an author whose metrics do not parse', () => {
    const body = structuredClone(recordedBody('twarc__tweets_lookup_cashtags_2023-01-05')) as Json;
    const [user] = body.includes.users as Json[];
    Object.assign(user as Json, { verified: undefined, verified_type: 'blue', public_metrics: { followers_count: 'many' } });
    const [post] = lookup(body).posts as [XPost];
    expect(post.author).toMatchObject({ verified: true, followersCount: null });
  });

  it('undoes &amp; once and moves the entities after it (a post with &amp; before its link)', () => {
    const body = recordedBody('twarc__tweets_lookup_geo_2022-03-16_b');
    const wire = (body.data as Json[])[0] as Json;
    expect(wire.text).toContain('Fields &amp; Expansions');
    const [post] = lookup(body).posts as [XPost];
    expect(post.text).toContain('Fields & Expansions');
    expect(post.text).not.toContain('&amp;');
    const [link] = post.urls;
    expect(link).toMatchObject({ url: 'https://t.co/D8LLYXkHSm', expandedUrl: 'https://twarc-project.readthedocs.io/en/latest/twarc2_en_us/' });
    expect(link!.start).toBe(wire.entities.urls[0].start - 4);
    expect(slice(post.text, link!)).toBe('https://t.co/D8LLYXkHSm');
  });

  it('shows a post whose author typed "&amp;" as typed: escaped by X once, undone once', () => {
    const [post] = lookup({ data: [{ id: '1', text: 'Fish &amp;amp; Chips &lt;3 &gt; 2 &quot;' }] }).posts;
    expect(post!.text).toBe('Fish &amp; Chips <3 > 2 &quot;');
  });

  it('stores a retweet with its whole original after "RT @author: ", not X\'s cut at 140 characters', () => {
    const body = recordedBody('twarc__tweets_lookup_retweet_mentions_2023-01-05');
    const wire = (body.data as Json[])[0] as Json;
    expect(wire.text).toMatch(/…$/);
    const original = ((body.includes as Json).tweets as Json[]).find((post) => post.id === wire.referenced_tweets[0].id) as Json;
    const [post] = lookup(body).posts as [XPost];
    expect(post.isRetweet).toBe(true);
    expect(post.text).toBe(`RT @S3NT1N3L17: ${unescapedOnce(original.text)}`);
    expect(post.text.length).toBeGreaterThan(wire.text.length);
    expect(post.mentions[0]).toEqual({ start: 3, end: 14, username: 'S3NT1N3L17', id: original.author_id });
    // The original's own entities, moved past the prefix.
    expect(post.hashtags.length).toBe(original.entities?.hashtags?.length ?? 0);
  });

  it('keeps X\'s cut retweet text when the original is not included (default fields)', () => {
    const body = recordedBody('tweepy__search_recent_default_fields_with_RT');
    const retweets = lookup(body).posts.filter((post) => post.text.startsWith('RT @'));
    expect(retweets.length).toBe(3);
    for (const post of retweets) expect(post.text).toMatch(/…$/);
  });

  it('reads media from includes.media and the link X adds for it', () => {
    const body = recordedBody('twarc__tweets_lookup_media_2023-01-05');
    const [post] = lookup(body).posts as [XPost];
    const media = ((body.includes as Json).media as Json[])[0] as Json;
    expect(post.media).toEqual([
      expect.objectContaining({ key: media.media_key, type: media.type, width: media.width, height: media.height }),
    ]);
    expect(post.media[0]!.url ?? post.media[0]!.previewImageUrl).toMatch(/^https:\/\/pbs\.twimg\.com\//);
    expect(post.urls.some((url) => url.mediaKey === media.media_key && /pic\.twitter\.com/.test(url.displayUrl))).toBe(true);
  });

  it('gives every version of an edited post the same root: its first id', () => {
    for (const name of ['twarc__tweets_lookup_edited_2022-10-03', 'twarc__tweets_lookup_edited_before_2022-10-03', 'twarc__tweets_lookup_edited_after_2022-10-03']) {
      const body = recordedBody(name);
      const wire = (body.data as Json[])[0] as Json;
      const [post] = lookup(body).posts as [XPost];
      expect(post.editHistoryPostIds).toEqual(wire.edit_history_tweet_ids);
      expect(post.rootId).toBe(wire.edit_history_tweet_ids[0]);
    }
    const versions = lookup(recordedBody('twarc__tweets_lookup_edited_2022-10-03'));
    expect(new Set([...versions.posts, ...versions.includedPosts].map((post) => post.rootId)).size).toBe(1);
  });

  it('shows the quoted post, whole, from includes', () => {
    const body = recordedBody('twarc__tweets_lookup_quoted_edited_2022-10-03');
    const wire = (body.data as Json[])[0] as Json;
    const quotedId = (wire.referenced_tweets as Json[]).find((reference) => reference.type === 'quoted')?.id;
    const [post] = lookup(body).posts as [XPost];
    expect(post.quoted).toMatchObject({ id: quotedId, author: expect.objectContaining({ username: expect.any(String) }) });
  });

  it('parses withheld posts and users and keeps the 200\'s partial errors beside the data', () => {
    const [post] = lookup(recordedBody('twarc__tweets_lookup_withheld_tweet_2021-05-01')).posts as [XPost];
    expect(post.withheldIn.length).toBeGreaterThan(0);
    const withUserErrors = lookup(recordedBody('twarc__tweets_lookup_withheld_user_2021-05-01'));
    expect(withUserErrors.posts).toHaveLength(1);
    expect(withUserErrors.errors.length).toBeGreaterThan(0);
  });

  it('reads a long post whole from note_tweet, matching and linking past X\'s cut', () => {
    const whole = `${'Thoughts on rates &amp; bonds. '.repeat(12)}Watching #BTC and $TSLA, more at https://t.co/abcdefghij`;
    const cut = `${Array.from(whole).slice(0, 270).join('')}… https://t.co/ZYXWVUTSRQ`;
    const tagAt = Array.from(whole).join('').indexOf('#BTC');
    const cpIndex = (needle: string) => Array.from(whole.slice(0, whole.indexOf(needle))).length;
    const body = {
      data: [
        {
          id: '1800000000000000001',
          text: cut,
          edit_history_tweet_ids: ['1800000000000000001'],
          entities: { urls: [{ start: 272, end: 295, url: 'https://t.co/ZYXWVUTSRQ', expanded_url: 'https://x.com/i/web/status/1800000000000000001', display_url: 'x.com/i/web/status/1…' }] },
          note_tweet: {
            text: whole,
            entities: {
              hashtags: [{ start: cpIndex('#BTC'), end: cpIndex('#BTC') + 4, tag: 'BTC' }],
              cashtags: [{ start: cpIndex('$TSLA'), end: cpIndex('$TSLA') + 5, tag: 'TSLA' }],
              urls: [{ start: cpIndex('https://t.co/abcdefghij'), end: cpIndex('https://t.co/abcdefghij') + 23, url: 'https://t.co/abcdefghij', expanded_url: 'https://example.com/rates', display_url: 'example.com/rates' }],
            },
          },
        },
      ],
    };
    expect(tagAt).toBeGreaterThan(280);
    const [post] = lookup(body).posts as [XPost];
    expect(post.text).toBe(unescapedOnce(whole));
    expect(post.hashtags.map((tag) => slice(post.text, tag))).toEqual(['#BTC']);
    expect(post.cashtags.map((tag) => slice(post.text, tag))).toEqual(['$TSLA']);
    expect(post.urls).toEqual([expect.objectContaining({ url: 'https://t.co/abcdefghij', expandedUrl: 'https://example.com/rates' })]);
    expect(slice(post.text, post.urls[0]!)).toBe('https://t.co/abcdefghij');
  });

  it('keeps what can be trusted of a malformed post and the rest of the page, naming what it left out', () => {
    const body = recordedBody('twarc__tweets_lookup_cashtags_2023-01-05') as Json;
    const good = (body.data as Json[])[0] as Json;
    const noTag = { ...good, id: '1700000000000000001', entities: { ...good.entities, hashtags: [{ start: 0, end: 3 }] } };
    const outside = { ...good, id: '1700000000000000002', entities: { cashtags: [{ start: 5000, end: 5004, tag: 'ZZZ' }] } };
    const unknownAuthor = { ...good, id: '1700000000000000003', author_id: '999' };
    const newReference = { ...good, id: '1700000000000000004', referenced_tweets: [{ type: 'reposted_with_comment', id: '1' }] };
    const badMetrics = { ...good, id: '1700000000000000005', public_metrics: { like_count: 'many' } };
    const noText = { id: '1700000000000000006' };
    const result = lookup({ ...body, data: [good, noTag, outside, unknownAuthor, newReference, badMetrics, noText] });
    expect(result.posts.map((post) => post.id)).toEqual([good.id, ...['1', '2', '3', '4', '5'].map((n) => `170000000000000000${n}`)]);
    const byId = new Map(result.posts.map((post) => [post.id, post]));
    expect(byId.get('1700000000000000001')!.cashtags.length).toBe(lookup(body).posts[0]!.cashtags.length);
    expect(byId.get('1700000000000000002')!.cashtags).toEqual([]);
    expect(byId.get('1700000000000000003')!.author).toBeNull();
    expect(byId.get('1700000000000000004')).toMatchObject({ isRetweet: false, isQuote: false, referencedPosts: [{ type: 'reposted_with_comment', id: '1' }] });
    expect(byId.get('1700000000000000005')!.metrics).toBeNull();
    expect(result.malformed).toEqual([
      { id: '1700000000000000001', dropped: ['entities.hashtags.0'] },
      { id: '1700000000000000002', dropped: ['entities.cashtags.0'] },
      { id: '1700000000000000003', dropped: ['author'] },
      { id: '1700000000000000005', dropped: ['public_metrics'] },
      { id: '1700000000000000006', dropped: ['post'] },
    ]);
  });
});

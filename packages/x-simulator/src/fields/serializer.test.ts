import request from 'supertest';
import { APP_HEADERS as APP, simulatorWithClock } from '../testing';

const SEARCH = '/2/tweets/search/recent';
// What the Hashwatch client asks for on every post endpoint.
const CLIENT_FIELDS = {
  'tweet.fields': 'created_at,lang,public_metrics,referenced_tweets,conversation_id,entities,author_id,in_reply_to_user_id,note_tweet,attachments,edit_history_tweet_ids,withheld',
  expansions: 'author_id,referenced_tweets.id,referenced_tweets.id.author_id,attachments.media_keys',
  'media.fields': 'type,url,preview_image_url,width,height,alt_text',
  'user.fields': 'username,name,verified,public_metrics,withheld',
};

/** The code points [start, end) of a string, as X counts entity indices. */
const slice = (text: string, start: number, end: number) => Array.from(text).slice(start, end).join('');

describe('post text as X sends it: HTML-escaped', () => {
  const sim = simulatorWithClock();

  it('escapes &, < and > (not quotes) and counts entity indices in code points over the escaped text', async () => {
    const raw = 'Tom & Jerry <3 "quotes" 😀 #cartoon $DIS @alice';
    const post = sim.state.injectPost({ author: 'bob', text: raw });
    sim.state.createUser({ username: 'alice' });
    const res = await request(sim.app).get(`/2/tweets/${post.id}`).query({ 'tweet.fields': 'entities' }).set(APP).expect(200);
    const { text, entities } = res.body.data;
    expect(text).toBe('Tom &amp; Jerry &lt;3 "quotes" 😀 #cartoon $DIS @alice');
    expect(slice(text, entities.hashtags[0].start, entities.hashtags[0].end)).toBe('#cartoon');
    expect(slice(text, entities.cashtags[0].start, entities.cashtags[0].end)).toBe('$DIS');
    expect(slice(text, entities.mentions[0].start, entities.mentions[0].end)).toBe('@alice');
    expect(entities.hashtags[0]).toEqual({ start: 33, end: 41, tag: 'cartoon' });
    expect(sim.state.store.post(post.id)!.text).toBe(raw);
  });

  it('matches search queries against the raw text, not the escaped one', async () => {
    sim.state.injectPost({ author: 'bob', text: 'fish & chips #food' });
    const raw = await request(sim.app).get(SEARCH).query({ query: '"fish & chips"' }).set(APP).expect(200);
    expect(raw.body.data.map((post: { text: string }) => post.text)).toEqual(['fish &amp; chips #food']);
    const escaped = await request(sim.app).get(SEARCH).query({ query: 'amp' }).set(APP).expect(200);
    expect(escaped.body.meta.result_count).toBe(0);
  });
});

describe('long posts (over 280 characters)', () => {
  const sim = simulatorWithClock();
  const whole = `#start ${'lorem ipsum & dolor '.repeat(20)}#tail end`;

  it('cut `text` to about 275 code points, …, a space and a t.co link to the whole post, entities over that text only', async () => {
    const post = sim.state.injectPost({ author: 'alice', text: whole });
    const res = await request(sim.app).get(`/2/tweets/${post.id}`).query({ 'tweet.fields': 'entities' }).set(APP).expect(200);
    const { text, entities } = res.body.data;
    expect(text).toMatch(/^#start lorem ipsum &amp; dolor .*… https:\/\/t\.co\/[0-9A-Za-z]{10}$/);
    const rawShown = sim.state.store.post(post.id)!.shown!.text;
    expect(Array.from(rawShown).length).toBeLessThanOrEqual(276 + 24);
    expect(Array.from(rawShown.slice(0, rawShown.indexOf('…'))).length).toBeGreaterThanOrEqual(270);
    expect(entities.hashtags).toEqual([{ start: 0, end: 6, tag: 'start' }]);
    expect(entities.urls).toEqual([
      {
        start: Array.from(text).length - 23,
        end: Array.from(text).length,
        url: text.slice(-23),
        expanded_url: `https://twitter.com/i/web/status/${post.id}`,
        display_url: `twitter.com/i/web/status/${post.id.charAt(0)}…`,
      },
    ]);
    expect(res.body.data.note_tweet).toBeUndefined();
  });

  it('sends the whole text and its own entities in note_tweet only when tweet.fields asks for note_tweet', async () => {
    const post = sim.state.injectPost({ author: 'alice', text: whole });
    const res = await request(sim.app).get('/2/tweets').query({ ids: post.id, 'tweet.fields': 'note_tweet' }).set(APP).expect(200);
    const note = res.body.data[0].note_tweet;
    expect(note.text).toBe(whole.replace(/&/g, '&amp;'));
    expect(note.entities.hashtags.map((tag: { tag: string }) => tag.tag)).toEqual(['start', 'tail']);
    const tail = note.entities.hashtags[1];
    expect(slice(note.text, tail.start, tail.end)).toBe('#tail');
    expect(Object.keys(note.entities)).toEqual(['hashtags']);
    const short = sim.state.injectPost({ author: 'alice', text: 'short #one' });
    const plain = await request(sim.app).get(`/2/tweets/${short.id}`).query({ 'tweet.fields': 'note_tweet' }).set(APP).expect(200);
    expect(plain.body.data.note_tweet).toBeUndefined();
  });

  it('are found by search through the whole text, and say note_post with naming v2.167', async () => {
    const post = sim.state.injectPost({ author: 'alice', text: whole });
    const found = await request(sim.app).get(SEARCH).query({ query: '#tail' }).set(APP).expect(200);
    expect(found.body.data.map((item: { id: string }) => item.id)).toContain(post.id);
    const renamed = simulatorWithClock({ naming: 'v2.167' });
    const long = renamed.state.injectPost({ author: 'alice', text: whole });
    const res = await request(renamed.app).get(`/2/tweets/${long.id}`).query({ 'post.fields': 'note_post' }).set(APP).expect(200);
    expect(res.body.data.note_post.text).toContain('#tail end');
  });

  it('may be 25,000 characters long, counted in code points; the control API refuses one more', async () => {
    const emoji = '😀'.repeat(25_000);
    const ok = await request(sim.app).post('/_sim/posts').send({ author: 'alice', text: emoji }).expect(201);
    expect(ok.body.note_tweet.text).toBe(emoji);
    const tooLong = await request(sim.app).post('/_sim/posts').send({ author: 'alice', text: `${emoji}!` }).expect(400);
    expect(tooLong.body.error.message).toMatch(/^text: at most 25,000 characters/);
  });
});

describe('retweets', () => {
  const sim = simulatorWithClock({ searchIncludesRetweets: true });
  const original = `Long enough to be cut when retweeted: ${'#one two three & four five '.repeat(5)}#never`;

  it('show `RT @author: ` and the original cut at 140 with …, entities of that cut only, and the whole original in includes.tweets', async () => {
    const post = sim.state.injectPost({ author: 'alice', text: original, public_metrics: { like_count: 7, reply_count: 2 } });
    sim.state.addRetweets(post.id, { usernames: ['bob'], anonymous: 4 });
    const res = await request(sim.app)
      .get(SEARCH)
      .query({ query: 'from:bob is:retweet', 'tweet.fields': 'entities,public_metrics,referenced_tweets', expansions: 'referenced_tweets.id,referenced_tweets.id.author_id' })
      .set(APP)
      .expect(200);
    const [retweet] = res.body.data;
    const rawCut = `RT @alice: ${original}`.slice(0, 139).trimEnd();
    expect(retweet.text).toBe(`${rawCut.replace(/&/g, '&amp;')}…`);
    expect(retweet.referenced_tweets).toEqual([{ type: 'retweeted', id: post.id }]);
    expect(retweet.entities.mentions).toEqual([{ start: 3, end: 9, username: 'alice', id: post.authorId }]);
    for (const tag of retweet.entities.hashtags) expect(tag.end).toBeLessThan(Array.from(retweet.text).length);
    expect(retweet.entities.hashtags.map((tag: { tag: string }) => tag.tag)).not.toContain('never');
    expect(retweet.public_metrics).toEqual({ retweet_count: 5, reply_count: 0, like_count: 0, quote_count: 0, bookmark_count: 0, impression_count: 0 });
    expect(res.body.includes.tweets).toEqual([expect.objectContaining({ id: post.id, text: original.replace(/&/g, '&amp;') })]);
    expect(res.body.includes.users).toEqual([expect.objectContaining({ id: post.authorId, username: 'alice' })]);
  });

  it('retweet the original when a retweet is retweeted', async () => {
    const post = sim.state.injectPost({ author: 'erin', text: 'first hand #x' });
    sim.state.addRetweets(post.id, { usernames: ['frank'] });
    const retweet = [...sim.state.store.newestFirst({ authorId: sim.state.store.userByUsername('frank')!.id })][0]!;
    const again = sim.state.injectPost({ author: 'gina', retweet_of: retweet.id });
    const res = await request(sim.app).get(`/2/tweets/${again.id}`).query({ 'tweet.fields': 'referenced_tweets,public_metrics' }).set(APP).expect(200);
    expect(res.body.data).toMatchObject({ text: 'RT @erin: first hand #x', referenced_tweets: [{ type: 'retweeted', id: post.id }], public_metrics: { retweet_count: 2 } });
  });

  it('use includes.posts and repost_count with naming v2.167', async () => {
    const renamed = simulatorWithClock({ naming: 'v2.167', searchIncludesRetweets: true });
    const post = renamed.state.injectPost({ author: 'alice', text: 'short one #x' });
    renamed.state.addRetweets(post.id, { usernames: ['bob'] });
    const res = await request(renamed.app)
      .get(SEARCH)
      .query({ query: 'from:bob is:retweet', 'tweet.fields': 'public_metrics,referenced_tweets', expansions: 'referenced_posts.id' })
      .set(APP)
      .expect(200);
    expect(res.body.data[0]).toMatchObject({ text: 'RT @alice: short one #x', referenced_posts: [{ type: 'retweeted', id: post.id }], public_metrics: { repost_count: 1, like_count: 0 } });
    expect(res.body.includes.posts.map((item: { id: string }) => item.id)).toEqual([post.id]);
  });
});

describe('links, media and quotes', () => {
  const sim = simulatorWithClock();

  it('turns typed and given links into t.co links with expanded and display URLs, and appends the media link', async () => {
    const published = await request(sim.app)
      .post('/_sim/posts')
      .send({
        author: 'alice',
        text: 'read https://example.com/articles/2026/x-simulator-notes now',
        links: ['https://www.example.org/'],
        media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/a.jpg', width: 1200, height: 675, alt_text: 'a chart' }],
      })
      .expect(201);
    const res = await request(sim.app).get('/2/tweets').query({ ids: published.body.id, ...CLIENT_FIELDS }).set(APP).expect(200);
    const [post] = res.body.data;
    const [typed, given, media] = post.entities.urls;
    expect(post.text).toBe(`read ${typed.url} now ${given.url} ${media.url}`);
    expect(typed).toEqual({ start: 5, end: 28, url: expect.stringMatching(/^https:\/\/t\.co\/\w{10}$/), expanded_url: 'https://example.com/articles/2026/x-simulator-notes', display_url: 'example.com/articles/2026/…' });
    expect(given).toMatchObject({ expanded_url: 'https://www.example.org/', display_url: 'example.org' });
    const mediaKey = post.attachments.media_keys[0];
    expect(post.attachments).toEqual({ media_keys: [expect.stringMatching(/^3_\d+$/)] });
    expect(media).toEqual({
      start: Array.from(post.text).length - 23,
      end: Array.from(post.text).length,
      url: media.url,
      expanded_url: `https://twitter.com/alice/status/${post.id}/photo/1`,
      display_url: `pic.twitter.com/${media.url.slice(13)}`,
      media_key: mediaKey,
    });
    expect(res.body.includes.media).toEqual([{ media_key: mediaKey, type: 'photo', url: 'https://pbs.twimg.com/media/a.jpg', width: 1200, height: 675, alt_text: 'a chart' }]);
  });

  it('serves a video with its preview image and only the media fields asked for', async () => {
    const post = sim.state.injectPost({ author: 'alice', text: 'watch', media: [{ type: 'video', preview_image_url: 'https://pbs.twimg.com/v.jpg', width: 1280, height: 720 }] });
    const res = await request(sim.app).get(`/2/tweets/${post.id}`).query({ expansions: 'attachments.media_keys', 'media.fields': 'preview_image_url' }).set(APP).expect(200);
    expect(res.body.includes.media).toEqual([{ media_key: expect.stringMatching(/^7_\d+$/), type: 'video', preview_image_url: 'https://pbs.twimg.com/v.jpg' }]);
    expect(res.body.data.text).toMatch(/^watch https:\/\/t\.co\/\w{10}$/);
    const plain = await request(sim.app).get(`/2/tweets/${post.id}`).query({ 'tweet.fields': 'entities' }).set(APP).expect(200);
    expect(plain.body.data.entities.urls[0].expanded_url).toBe(`https://twitter.com/alice/status/${post.id}/video/1`);
    expect(plain.body.includes).toBeUndefined();
  });

  it('refuses media that X would not take', async () => {
    await request(sim.app).post('/_sim/posts').send({ author: 'alice', media: [{ type: 'photo', width: 1, height: 1 }] }).expect(400);
    const two = [
      { type: 'video', preview_image_url: 'https://pbs.twimg.com/v.jpg', width: 1, height: 1 },
      { type: 'photo', url: 'https://pbs.twimg.com/p.jpg', width: 1, height: 1 },
    ];
    await request(sim.app).post('/_sim/posts').send({ author: 'alice', text: 'x', media: two }).expect(400);
    await request(sim.app).post('/_sim/posts').send({ author: 'alice', text: 'x', links: ['ftp://example.com/'] }).expect(400);
  });

  it('serves a quote with its quoted post in includes.tweets and its author in includes.users', async () => {
    const quoted = sim.state.injectPost({ author: 'carol', text: 'the original take' });
    const quote = sim.state.injectPost({ author: 'dave', text: 'hot take on this', quote_of: quoted.id });
    const res = await request(sim.app).get(`/2/tweets/${quote.id}`).query(CLIENT_FIELDS).set(APP).expect(200);
    expect(res.body.data.referenced_tweets).toEqual([{ type: 'quoted', id: quoted.id }]);
    expect(res.body.includes.tweets).toEqual([expect.objectContaining({ id: quoted.id, text: 'the original take', author_id: quoted.authorId })]);
    expect(res.body.includes.users.map((user: { username: string }) => user.username).sort()).toEqual(['carol', 'dave']);
  });

  it('accepts the client’s field parameters on search, timelines, lookups and the stream, and refuses unknown media fields', async () => {
    const post = sim.state.injectPost({ author: 'alice', text: 'fields #f' });
    await request(sim.app).get(SEARCH).query({ query: '#f', ...CLIENT_FIELDS }).set(APP).expect(200);
    await request(sim.app).get(`/2/users/${post.authorId}/tweets`).query(CLIENT_FIELDS).set(APP).expect(200);
    await request(sim.app).get('/2/tweets').query({ ids: post.id, ...CLIENT_FIELDS, 'tweet.fields': `${CLIENT_FIELDS['tweet.fields']},edit_history_post_ids,referenced_posts` }).set(APP).expect(200);
    const bad = await request(sim.app).get(SEARCH).query({ query: '#f', 'media.fields': 'url,colour' }).set(APP).expect(400);
    expect(bad.body.errors[0].message).toContain('[colour] is not one of');
    await request(sim.app).get(SEARCH).query({ query: '#f', 'poll.fields': 'votes' }).set(APP).expect(400);
  });
});

describe('withheld posts and users, and languages', () => {
  const sim = simulatorWithClock();

  it('shows withheld {copyright, country_codes, scope} on a post and {country_codes} on its author, when asked', async () => {
    await request(sim.app).post('/_sim/users').send({ username: 'censored', withheld: { country_codes: ['RU'] } }).expect(201);
    const published = await request(sim.app)
      .post('/_sim/posts')
      .send({ author: 'censored', text: 'not here', lang: 'qst', withheld: { country_codes: ['DE', 'FR'] } })
      .expect(201);
    const res = await request(sim.app).get(`/2/tweets/${published.body.id}`).query(CLIENT_FIELDS).set(APP).expect(200);
    expect(res.body.data).toMatchObject({ lang: 'qst', withheld: { copyright: false, country_codes: ['DE', 'FR'] } });
    expect(res.body.includes.users[0].withheld).toEqual({ country_codes: ['RU'] });
    const bare = await request(sim.app).get(`/2/tweets/${published.body.id}`).set(APP).expect(200);
    expect(bare.body.data.withheld).toBeUndefined();
  });

  it('marks and clears withholding on an existing post and user', async () => {
    const post = sim.state.injectPost({ author: 'free', text: 'hello', lang: 'in' });
    const marked = await request(sim.app).put(`/_sim/posts/${post.id}/withheld`).send({ copyright: true, country_codes: ['US'], scope: 'tweet' }).expect(200);
    expect(marked.body.withheld).toEqual({ copyright: true, country_codes: ['US'], scope: 'tweet' });
    await request(sim.app).put('/_sim/users/free/withheld').send({ country_codes: ['IN'], scope: 'user' }).expect(200);
    const res = await request(sim.app).get(`/2/tweets/${post.id}`).query(CLIENT_FIELDS).set(APP).expect(200);
    expect(res.body.data).toMatchObject({ lang: 'in', withheld: { copyright: true, country_codes: ['US'], scope: 'tweet' } });
    expect(res.body.includes.users[0].withheld).toEqual({ country_codes: ['IN'], scope: 'user' });
    await request(sim.app).delete(`/_sim/posts/${post.id}/withheld`).expect(200);
    const cleared = await request(sim.app).get(`/2/tweets/${post.id}`).query(CLIENT_FIELDS).set(APP).expect(200);
    expect(cleared.body.data.withheld).toBeUndefined();
    await request(sim.app).put(`/_sim/posts/${post.id}/withheld`).send({ country_codes: ['usa'] }).expect(400);
    await request(sim.app).put('/_sim/users/ghost/withheld').send({ country_codes: ['IN'] }).expect(404);
  });

  it('says scope "post" with naming v2.167', async () => {
    const renamed = simulatorWithClock({ naming: 'v2.167' });
    const post = renamed.state.injectPost({ author: 'alice', text: 'x', lang: 'und', withheld: { country_codes: ['DE'], scope: 'tweet' } });
    const res = await request(renamed.app).get(`/2/tweets/${post.id}`).query({ 'post.fields': 'withheld,lang' }).set(APP).expect(200);
    expect(res.body.data).toMatchObject({ lang: 'und', withheld: { copyright: false, country_codes: ['DE'], scope: 'post' } });
  });
});

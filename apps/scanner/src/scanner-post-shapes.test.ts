import { itemJsonSql } from '@hashwatch/feed';
import { syncSources } from './sources/sync-sources';
import { useScannerFixture } from './test-support/scanner-fixture';

// The simulator answers in X's real shape: escaped text, long posts cut with the whole in note_tweet, retweets cut
// at about 140 characters with the original in includes, edits with new ids, t.co links, media in includes.
// Each test uses its own tags and handles, so sources of earlier tests never interfere.
describe('what the scanner stores of X\'s real post shapes', () => {
  const fx = useScannerFixture({ searchIncludesRetweets: true });

  async function tick() {
    await fx.makeDue();
    return fx.scanner().runTick();
  }

  async function itemRow(userId: string, xPostId: string) {
    const { rows } = await fx.pool().query(
      `SELECT text, url, lang, urls, media, quoted, edited_at, deleted, ${itemJsonSql('f')} AS item_head FROM feed_items f WHERE user_id = $1 AND x_post_id = $2`,
      [userId, xPostId],
    );
    return rows[0];
  }

  it('stores the text as its author wrote it: X\'s &amp; &lt; &gt; undone once, whatever the author typed', async () => {
    const user = await fx.account();
    await fx.track(user, 'amper');
    const text = 'Fish & Chips <3 > 2, literally &amp; too #amper';
    const post = fx.sim.state.injectPost({ author: 'chef', text });
    await tick();
    expect(await itemRow(user, post.id)).toMatchObject({ text });
    const { rows } = await fx.pool().query('SELECT text FROM x_posts WHERE id = $1', [post.id]);
    expect(rows[0]?.text).toBe(text);
  });

  it('finds a long post whose tag lies past X\'s cut, and stores its whole text', async () => {
    const user = await fx.account();
    await fx.track(user, 'longtail');
    const text = `${'A thread on rates & bonds, in full. '.repeat(12)}Finally: #longtail $LTX`;
    expect(text.length).toBeGreaterThan(400);
    const post = fx.sim.state.injectPost({ author: 'essayist', text });
    await tick();
    expect(await itemRow(user, post.id)).toMatchObject({ text });
    // The search asked for note_tweet: no second request per post.
    const search = fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).at(-1);
    expect(String(search?.query['tweet.fields'])).toContain('note_tweet');
    expect(fx.sim.state.requestLog.entries({ endpoint: 'posts_lookup' })).toHaveLength(0);
  });

  it('stores a retweet with the whole original after "RT @author: ", not X\'s cut at 140 characters', async () => {
    const user = await fx.account();
    await fx.track(user, 'rtwhole', { excludeRetweets: false });
    const original = fx.sim.state.injectPost({
      author: 'origin',
      text: `${'Long original words & more words. '.repeat(6)}#rtwhole`,
      media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/rt.jpg', width: 800, height: 600 }],
    });
    const retweet = fx.sim.state.injectPost({ author: 'booster', retweet_of: original.id });
    await tick();
    const row = await itemRow(user, retweet.id);
    expect(row.text).toBe(`RT @origin: ${original.text}`);
    // The original's photo, from the same answer (referenced_tweets.id.attachments.media_keys).
    expect(row.media).toEqual([{ type: 'photo', url: 'https://pbs.twimg.com/media/rt.jpg', preview_image_url: null, width: 800, height: 600, alt_text: null }]);
  });

  it('stores links, media, the quoted post and the language with the item, from the same search answer', async () => {
    const user = await fx.account();
    await fx.track(user, 'charted');
    const quotedPost = fx.sim.state.injectPost({ author: 'analyst', text: 'Q3 numbers & a chart' });
    const post = fx.sim.state.injectPost({
      author: 'trader',
      text: 'Look at this #charted',
      lang: 'en',
      quote_of: quotedPost.id,
      links: ['https://example.com/report?a=1&b=2'],
      media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/chart.jpg', width: 1200, height: 675, alt_text: 'A rising line' }],
    });
    await tick();
    const row = await itemRow(user, post.id);
    expect(row.lang).toBe('en');
    expect(row.urls).toEqual(expect.arrayContaining([expect.objectContaining({ expanded_url: 'https://example.com/report?a=1&b=2' })]));
    for (const link of row.urls as { url: string }[]) expect(row.text).toContain(link.url);
    expect(row.media).toEqual([{ type: 'photo', url: 'https://pbs.twimg.com/media/chart.jpg', preview_image_url: null, width: 1200, height: 675, alt_text: 'A rising line' }]);
    expect(row.quoted).toEqual({ id: quotedPost.id, author: '@analyst', author_name: 'analyst', text: 'Q3 numbers & a chart', url: `https://x.com/analyst/status/${quotedPost.id}` });
    expect(JSON.parse(`${row.item_head}}`)).toMatchObject({ urls: row.urls, media: row.media, quoted: row.quoted, lang: 'en' });
  });

  it('treats an edit as the post it edits: the item shows the newest text, once, with edited_at and no second alert', async () => {
    const first = await fx.account();
    const second = await fx.account();
    await fx.track(first, 'editme');
    await fx.track(second, 'editme');
    const original = fx.sim.state.injectPost({ author: 'typo', text: 'Buy #editme at 10 & hold' });
    await tick();
    const alertsBefore = (await fx.alertJobs()).length;
    const edit = fx.sim.state.editPost(original.id, { text: 'Buy #editme at 12 & hold' });
    expect(edit.id).not.toBe(original.id);
    await tick();

    for (const user of [first, second]) {
      const items = await fx.items(user);
      expect(items.map((item) => item.x_post_id)).toEqual([original.id]);
      const row = await itemRow(user, original.id);
      expect(row).toMatchObject({ text: 'Buy #editme at 12 & hold', url: `https://x.com/typo/status/${edit.id}`, deleted: false });
      expect(row.edited_at).toBeInstanceOf(Date);
      expect(JSON.parse(`${row.item_head}}`)).toMatchObject({ text: 'Buy #editme at 12 & hold', edited_at: row.edited_at.toISOString() });
    }
    expect((await fx.alertJobs()).length).toBe(alertsBefore);
    expect(await fx.duplicatedAlertJobIds()).toEqual([]);
    const { rows } = await fx.pool().query('SELECT version_ids, text FROM x_posts WHERE id = $1', [original.id]);
    expect(rows).toEqual([{ version_ids: [original.id, edit.id], text: 'Buy #editme at 12 & hold' }]);
    // Seeing the same version again changes nothing.
    const editedAt = (await itemRow(first, original.id)).edited_at;
    await tick();
    expect((await itemRow(first, original.id)).edited_at).toEqual(editedAt);
  });

  it('stores a post first seen as an edit under its first version, marked edited, and a later edit updates it', async () => {
    const user = await fx.account();
    await fx.track(user, 'lateedit');
    const original = fx.sim.state.injectPost({ author: 'fixer', text: 'v1 #lateedit' });
    const v2 = fx.sim.state.editPost(original.id, { text: 'v2 #lateedit' });
    await tick();
    const items = await fx.items(user);
    expect(items.map((item) => item.x_post_id)).toEqual([original.id]);
    expect(await itemRow(user, original.id)).toMatchObject({ text: 'v2 #lateedit', url: `https://x.com/fixer/status/${v2.id}` });
    expect((await itemRow(user, original.id)).edited_at).toBeInstanceOf(Date);
    fx.sim.state.editPost(v2.id, { text: 'v3 #lateedit' });
    await tick();
    expect((await fx.items(user)).length).toBe(1);
    expect(await itemRow(user, original.id)).toMatchObject({ text: 'v3 #lateedit' });
  });

  it('does not take an edit of a post published before the track as a new post', async () => {
    const user = await fx.account();
    const original = fx.sim.state.injectPost({ author: 'early', text: 'before #oldedit' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await fx.track(user, 'oldedit', { createdAt: new Date() });
    await syncSources(fx.pool());
    fx.sim.state.editPost(original.id, { text: 'after, edited #oldedit' });
    await tick();
    expect(await fx.items(user)).toEqual([]);
  });
});

import type { FeedItemRow, NewFeedItem } from '@hashwatch/feed';
import { feedFixture } from '../../test-support/feed-fixture';
import { request, useGateway } from '../../test-support/gateway-harness';

describe('POST /v1/tracks/{id}/preview and /v1/accounts/{id}/preview', () => {
  const gw = useGateway();
  const feed = feedFixture(gw);

  /** Records what the scanner keeps of a post at detection. */
  async function recordFacts(xPostId: string, facts: { verified: boolean | null; followers: number | null; quote?: boolean; links?: boolean }) {
    await gw.env.database.db.pool.query(
      `INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at, author_verified, author_followers, is_quote, has_links)
       VALUES ($1, '1', 'a', 'A', '', now(), $2, $3, $4, $5)`,
      [xPostId, facts.verified, facts.followers, facts.quote ?? null, facts.links ?? null],
    );
  }

  it('answers the newest stored posts of the source that the filters would pass, judged as the scanner judges, and changes nothing', async () => {
    const { auth, accountId: userId } = await gw.account('pro');
    const track = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'BTC' }).expect(201);
    const photo: NewFeedItem['media'] = [{ type: 'photo', url: 'https://pbs.twimg.com/media/a.jpg', preview_image_url: null, width: 8, height: 6, alt_text: null }];
    const stored: FeedItemRow[] = [];
    const posts: [string, Partial<NewFeedItem>, { verified: boolean | null; followers: number | null }][] = [
      ['ETF approved #btc', {}, { verified: true, followers: 90_000 }],
      ['#btc giveaway ETF', {}, { verified: true, followers: 90_000 }],
      ['#btc chart', { media: photo }, { verified: false, followers: 40 }],
      ['#btc etfs are not it', {}, { verified: null, followers: null }],
      ['#eth only', { sources: ['#eth'], hashtag: 'eth' }, { verified: true, followers: 5 }],
    ];
    for (const [text, extra, facts] of posts) {
      const item = feed.item(userId, { text, ...extra });
      await recordFacts(item.xPostId, facts);
      stored.push((await feed.store([item]))[0]!);
    }
    const preview = (filters: unknown) => request(gw.app).post(`/v1/tracks/${track.body.id}/preview`).set(auth).send({ filters });

    const words = await preview({ keywords_any: ['etf'], keywords_none: ['giveaway'] }).expect(200);
    expect(words.body).toMatchObject({ examined: 4, passed: 1 });
    expect(words.body.data.map((post: { id: string }) => post.id)).toEqual([stored[0]!.id]);
    // Each shown post is the feed's own JSON.
    const [fromFeed] = (await request(gw.app).get('/v1/posts').set(auth).query({ limit: 5 }).expect(200)).body.data.filter((post: { id: string }) => post.id === stored[0]!.id);
    expect(words.body.data[0]).toEqual(fromFeed);

    expect((await preview({ verified_only: true, min_followers: 1000 }).expect(200)).body).toMatchObject({ passed: 2 });
    expect((await preview({ has_media: true }).expect(200)).body.data.map((post: { id: string }) => post.id)).toEqual([stored[2]!.id]);
    // A post whose author's count was not kept passes no follower floor.
    expect((await preview({ min_followers: 1 }).expect(200)).body).toMatchObject({ passed: 3 });
    const all = await preview(null).expect(200);
    expect(all.body.data.map((post: { id: string }) => post.id)).toEqual(stored.slice(0, 4).reverse().map((row) => row.id));

    expect((await request(gw.app).get('/v1/tracks').set(auth).expect(200)).body.data[0].filters.keywords_any).toEqual([]);
  });

  it('reads only what the track\'s own rules pass: its language, and mentions only when it asks for them', async () => {
    const { auth, accountId: userId } = await gw.account('pro');
    const english = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc', lang: 'en' }).expect(201);
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' }).expect(201);
    const en = (await feed.store([feed.item(userId, { text: 'in english #btc', lang: 'en' })]))[0]!;
    await feed.store([feed.item(userId, { text: 'auf deutsch #btc', lang: 'de' })]);
    const onlyEnglish = await request(gw.app).post(`/v1/tracks/${english.body.id}/preview`).set(auth).send({ filters: null }).expect(200);
    expect(onlyEnglish.body.data.map((post: { id: string }) => post.id)).toEqual([en.id]);

    const acme = await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'acme' }).expect(201);
    const account = { type: 'account' as const, hashtag: null, account: 'acme', sources: ['@acme'] };
    const own = (await feed.store([feed.item(userId, { ...account, author: 'Acme', matchedBy: 'author', text: 'we shipped' })]))[0]!;
    const mention = (await feed.store([feed.item(userId, { ...account, author: 'fan', matchedBy: 'mention', text: 'hi @acme' })]))[0]!;
    const ids = async () => (await request(gw.app).post(`/v1/accounts/${acme.body.id}/preview`).set(auth).send({ filters: null }).expect(200)).body.data.map((post: { id: string }) => post.id);
    expect(await ids()).toEqual([own.id]);
    await request(gw.app).patch(`/v1/accounts/${acme.body.id}`).set(auth).send({ include_mentions: true }).expect(200);
    expect(await ids()).toEqual([mention.id, own.id]);
  });

  it('answers 404 for another account\'s source and 400 naming a bad filter', async () => {
    const owner = await gw.account('pro');
    const other = await gw.account('pro');
    const account = await request(gw.app).post('/v1/accounts').set(owner.auth).send({ username: 'alice' }).expect(201);
    await request(gw.app).post(`/v1/accounts/${account.body.id}/preview`).set(owner.auth).send({ filters: null }).expect(200, { data: [], examined: 0, passed: 0 });
    const foreign = await request(gw.app).post(`/v1/accounts/${account.body.id}/preview`).set(other.auth).send({ filters: null });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    const bad = await request(gw.app).post(`/v1/accounts/${account.body.id}/preview`).set(owner.auth).send({ filters: { keywords_all: ['a'], keywords_none: ['A'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('filters.keywords_none');
    const missing = await request(gw.app).post(`/v1/accounts/${account.body.id}/preview`).set(owner.auth).send({});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('filters');
  });
});

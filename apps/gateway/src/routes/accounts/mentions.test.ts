import { feedFixture } from '../../test-support/feed-fixture';
import { request, useGateway } from '../../test-support/gateway-harness';

describe('mentions of a watched account', () => {
  const gw = useGateway();
  const feed = feedFixture(gw);

  it('takes include_mentions on create and PATCH of an account track, and refuses it on a hashtag track', async () => {
    const { auth } = await gw.account('pro');
    const plain = await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'acme' }).expect(201);
    expect(plain.body.include_mentions).toBe(false);
    const loud = await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'other', include_mentions: true, exclude_replies: false }).expect(201);
    expect(loud.body).toMatchObject({ include_mentions: true, exclude_replies: false });
    const patched = await request(gw.app).patch(`/v1/accounts/${plain.body.id}`).set(auth).send({ include_mentions: true }).expect(200);
    expect(patched.body.include_mentions).toBe(true);
    expect((await request(gw.app).get('/v1/accounts').set(auth).expect(200)).body.data.map((a: { include_mentions: boolean }) => a.include_mentions)).toEqual([true, true]);

    const bad = await request(gw.app).patch(`/v1/accounts/${plain.body.id}`).set(auth).send({ include_mentions: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('include_mentions');
    const track = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' }).expect(201);
    const onTrack = await request(gw.app).patch(`/v1/tracks/${track.body.id}`).set(auth).send({ include_mentions: true });
    expect(onTrack.status).toBe(400);
    expect(onTrack.body.error.message).toContain('include_mentions');
    expect((await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'eth', include_mentions: true })).status).toBe(400);
  });

  it('answers matched_by on every item: author or mention on account items, null on hashtag items', async () => {
    const { auth, accountId } = await gw.account('pro');
    const account = { type: 'account' as const, hashtag: null, account: 'acme', sources: ['@acme'] };
    await feed.store([
      feed.item(accountId, { ...account, matchedBy: 'mention', text: 'hi @acme' }),
      feed.item(accountId, { ...account, matchedBy: 'author', text: 'we shipped' }),
      // Stored before matched_by was kept: by its author.
      feed.item(accountId, { ...account, text: 'older post' }),
      feed.item(accountId, { text: 'tagged #btc' }),
    ]);
    const { body } = await request(gw.app).get('/v1/posts').set(auth).expect(200);
    const byText = Object.fromEntries(body.data.map((post: { text: string; matched_by: string | null }) => [post.text, post.matched_by]));
    expect(byText).toEqual({ 'hi @acme': 'mention', 'we shipped': 'author', 'older post': 'author', 'tagged #btc': null });
  });
});

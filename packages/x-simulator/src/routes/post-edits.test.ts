import request from 'supertest';
import { APP_HEADERS as APP, simulatorWithClock } from '../testing';

const SEARCH = '/2/tweets/search/recent';

describe('edits: POST /_sim/posts/:id/edits', () => {
  const sim = simulatorWithClock();
  beforeEach(() => sim.state.reset());

  const publish = async (body: Record<string, unknown>) => (await request(sim.app).post('/_sim/posts').send(body).expect(201)).body as { id: string; author_id: string };
  const edit = (id: string, body: Record<string, unknown>) => request(sim.app).post(`/_sim/posts/${id}/edits`).send(body);

  it('creates a new version with a larger id; every version lists the whole history oldest first, and the chain’s edit_controls', async () => {
    const first = await publish({ author: 'alice', text: 'helo #typo' });
    sim.clock.advance(10_000);
    const second = (await edit(first.id, { text: 'hello #typo' }).expect(201)).body;
    expect(BigInt(second.id)).toBeGreaterThan(BigInt(first.id));
    const res = await request(sim.app).get('/2/tweets').query({ ids: `${first.id},${second.id}`, 'tweet.fields': 'edit_controls,created_at' }).set(APP).expect(200);
    const controls = { edits_remaining: 4, is_edit_eligible: true, editable_until: '2026-11-22T12:30:00.000Z' };
    expect(res.body.data).toEqual([
      { id: first.id, text: 'helo #typo', edit_history_tweet_ids: [first.id, second.id], edit_controls: controls, created_at: '2026-11-22T12:00:00.000Z' },
      { id: second.id, text: 'hello #typo', edit_history_tweet_ids: [first.id, second.id], edit_controls: controls, created_at: '2026-11-22T12:00:10.000Z' },
    ]);
    const fresh = await publish({ author: 'alice', text: 'never edited' });
    const untouched = await request(sim.app).get(`/2/tweets/${fresh.id}`).query({ 'tweet.fields': 'edit_controls' }).set(APP).expect(200);
    expect(untouched.body.data.edit_controls).toEqual({ edits_remaining: 5, is_edit_eligible: true, editable_until: '2026-11-22T12:30:10.000Z' });
  });

  it('leaves search and the author’s timeline with the newest version only, found again after since_id', async () => {
    const first = await publish({ author: 'alice', text: 'draft #news' });
    const second = (await edit(first.id, { text: 'final #news' }).expect(201)).body;
    const search = await request(sim.app).get(SEARCH).query({ query: '#news' }).set(APP).expect(200);
    expect(search.body.data).toEqual([{ id: second.id, text: 'final #news', edit_history_tweet_ids: [first.id, second.id] }]);
    const since = await request(sim.app).get(SEARCH).query({ query: '#news', since_id: first.id }).set(APP).expect(200);
    expect(since.body.meta.result_count).toBe(1);
    const timeline = await request(sim.app).get(`/2/users/${first.author_id}/tweets`).set(APP).expect(200);
    expect(timeline.body.data.map((post: { id: string }) => post.id)).toEqual([second.id]);
    const renamed = simulatorWithClock({ naming: 'v2.167' });
    const post = renamed.state.injectPost({ author: 'alice', text: 'a' });
    const next = renamed.state.editPost(post.id, { text: 'b' });
    const lookup = await request(renamed.app).get(`/2/tweets/${post.id}`).set(APP).expect(200);
    expect(lookup.body.data).toEqual({ id: post.id, text: 'a', edit_history_post_ids: [post.id, next.id] });
  });

  it('lets engagement after an edit land on the newest version, each version keeping its own counts', async () => {
    const first = await publish({ author: 'alice', text: 'v1' });
    await request(sim.app).post(`/_sim/posts/${first.id}/likes`).send({ anonymous: 2 }).expect(200);
    const second = (await edit(first.id, { text: 'v2' }).expect(201)).body;
    await request(sim.app).post(`/_sim/posts/${first.id}/likes`).send({ anonymous: 3 }).expect(200);
    await request(sim.app).post(`/_sim/posts/${first.id}/replies`).send({ author: 'bob', text: 'nice' }).expect(201);
    const res = await request(sim.app).get('/2/tweets').query({ ids: `${first.id},${second.id}`, 'tweet.fields': 'public_metrics' }).set(APP).expect(200);
    expect(res.body.data.map((post: { public_metrics: { like_count: number; reply_count: number } }) => [post.public_metrics.like_count, post.public_metrics.reply_count])).toEqual([
      [2, 0],
      [3, 1],
    ]);
  });

  it('keeps the reply and quote references and the media unless replaced, and fills includes.tweets with every version for the edit_history expansion', async () => {
    const parent = await publish({ author: 'alice', text: 'thread start' });
    const quoted = await publish({ author: 'carol', text: 'quoted' });
    const photo = { type: 'photo', url: 'https://pbs.twimg.com/media/p.jpg', width: 10, height: 10 };
    const reply = await publish({ author: 'alice', text: 'more', reply_to: parent.id, quote_of: quoted.id, media: [photo] });
    const edited = (await edit(reply.id, { text: 'more, fixed' }).expect(201)).body;
    expect(edited).toMatchObject({ conversation_id: parent.id, in_reply_to_user_id: parent.author_id, attachments: { media_keys: [expect.stringMatching(/^3_/)] } });
    expect(edited.referenced_tweets).toEqual([
      { type: 'quoted', id: quoted.id },
      { type: 'replied_to', id: parent.id },
    ]);
    const res = await request(sim.app).get(`/2/tweets/${edited.id}`).query({ expansions: 'edit_history_tweet_ids,attachments.media_keys', 'tweet.fields': 'attachments' }).set(APP).expect(200);
    expect(res.body.includes.tweets.map((post: { id: string; text: string }) => [post.id, post.text.split(' https')[0]])).toEqual([
      [reply.id, 'more'],
      [edited.id, 'more, fixed'],
    ]);
    expect(res.body.includes.media).toHaveLength(1);
    expect(res.body.data.attachments.media_keys).toEqual([res.body.includes.media[0].media_key]);
  });

  it('refuses (409) an edit after 30 minutes, a sixth edit, and edits of retweets and of replies to others', async () => {
    const late = await publish({ author: 'alice', text: 'old' });
    sim.clock.advance(30 * 60_000);
    expect((await edit(late.id, { text: 'too late' }).expect(409)).body.error.code).toBe('conflict');
    const busy = await publish({ author: 'alice', text: 'v0' });
    for (let version = 1; version <= 5; version += 1) await edit(busy.id, { text: `v${version}` }).expect(201);
    expect((await edit(busy.id, { text: 'v6' }).expect(409)).body.error.message).toMatch(/no edits remaining/);
    const retweet = await publish({ author: 'bob', retweet_of: late.id });
    await edit(retweet.id, { text: 'nope' }).expect(409);
    const answer = await publish({ author: 'bob', text: '@alice hi', reply_to: late.id });
    await edit(answer.id, { text: '@alice hello' }).expect(409);
    const own = await publish({ author: 'alice', text: 'self thread', reply_to: late.id });
    await edit(own.id, { text: 'self thread, edited' }).expect(201);
    await edit('123', { text: 'x' }).expect(404);
    await edit(own.id, {}).expect(400);
  });
});

describe('deletions', () => {
  const sim = simulatorWithClock();
  beforeEach(() => sim.state.reset());

  it('deletes the whole edit chain from any version, and lookups answer each id in errors exactly as X does beside data', async () => {
    const kept = sim.state.injectPost({ author: 'alice', text: 'kept' });
    const first = sim.state.injectPost({ author: 'alice', text: 'v1' });
    const second = sim.state.editPost(first.id, { text: 'v2' });
    await request(sim.app).delete(`/_sim/posts/${first.id}`).expect(204);
    await request(sim.app).delete(`/_sim/posts/${second.id}`).expect(404);
    const res = await request(sim.app).get('/2/tweets').query({ ids: `${kept.id},${second.id},${first.id}` }).set(APP).expect(200);
    expect(res.body.data).toEqual([{ id: kept.id, text: 'kept', edit_history_tweet_ids: [kept.id] }]);
    expect(res.text).toContain(
      `"errors":[{"value":"${second.id}","detail":"Could not find tweet with ids: [${second.id}].","title":"Not Found Error","resource_type":"tweet","parameter":"ids","resource_id":"${second.id}","type":"https://api.twitter.com/2/problems/resource-not-found"},` +
        `{"value":"${first.id}","detail":"Could not find tweet with ids: [${first.id}].","title":"Not Found Error","resource_type":"tweet","parameter":"ids","resource_id":"${first.id}","type":"https://api.twitter.com/2/problems/resource-not-found"}]`,
    );
    const search = await request(sim.app).get(SEARCH).query({ query: 'v2' }).set(APP).expect(200);
    expect(search.body.meta.result_count).toBe(0);
  });

  it('takes the retweets of a deleted post with it and gives back the counts a deleted reply, quote or retweet added', async () => {
    const root = sim.state.injectPost({ author: 'alice', text: 'root' });
    const gone = sim.state.injectPost({ author: 'alice', text: 'gone' });
    sim.state.addRetweets(gone.id, { usernames: ['bob'] });
    const reply = sim.state.addReply(root.id, { author: 'carol', text: 'reply' });
    const quote = sim.state.injectPost({ author: 'dave', text: 'quote', quote_of: root.id });
    sim.state.addRetweets(root.id, { usernames: ['erin'] });
    const retweetOfRoot = [...sim.state.store.newestFirst({ authorId: sim.state.store.userByUsername('erin')!.id })][0]!;
    sim.state.deletePost(gone.id);
    const bobId = sim.state.store.userByUsername('bob')!.id;
    expect([...sim.state.store.newestFirst({ authorId: bobId })]).toEqual([]);
    for (const id of [reply.id, quote.id, retweetOfRoot.id]) sim.state.deletePost(id);
    const res = await request(sim.app).get(`/2/tweets/${root.id}`).query({ 'tweet.fields': 'public_metrics' }).set(APP).expect(200);
    expect(res.body.data.public_metrics).toMatchObject({ retweet_count: 0, reply_count: 0, quote_count: 0 });
  });

  it('reports a referenced post that is gone in errors when an expansion asks for it', async () => {
    const parent = sim.state.injectPost({ author: 'alice', text: 'parent' });
    const reply = sim.state.addReply(parent.id, { author: 'bob', text: 'child' });
    sim.state.deletePost(parent.id);
    const res = await request(sim.app).get('/2/tweets').query({ ids: reply.id, expansions: 'referenced_tweets.id' }).set(APP).expect(200);
    expect(res.body.data).toEqual([expect.objectContaining({ id: reply.id })]);
    expect(res.body.errors).toEqual([
      {
        value: parent.id,
        detail: `Could not find tweet with referenced_tweets.id: [${parent.id}].`,
        title: 'Not Found Error',
        resource_type: 'tweet',
        parameter: 'referenced_tweets.id',
        resource_id: parent.id,
        type: 'https://api.twitter.com/2/problems/resource-not-found',
      },
    ]);
    const plain = await request(sim.app).get('/2/tweets').query({ ids: reply.id }).set(APP).expect(200);
    expect(plain.body.errors).toBeUndefined();
  });
});

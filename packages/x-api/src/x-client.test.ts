import { XInvalidRequestError, XUserTokenRequiredError } from './x-errors';
import { POST_FIELDS } from './x-endpoints';
import { USER_TOKEN, useXClientFixture } from './test-support/x-client-fixture';
import type { XPost } from './x-types';

describe('createXClient against the simulator (2.166 spellings)', () => {
  const x = useXClientFixture();
  let rootId = '';

  beforeAll(() => {
    const { state } = x.sim;
    state.createUser({ username: 'alice', name: 'Alice Liddell' });
    const root = state.injectPost({ author: 'alice', text: 'gm #BTC and $TSLA', lang: 'en', created_at: new Date(Date.now() - 60_000).toISOString() });
    rootId = root.id;
    state.addReply(root.id, { author: 'bob', text: '@alice gm #btc' });
    state.addLikes(root.id, { usernames: ['carol', 'dave'], anonymous: 8 });
    state.addRetweets(root.id, { usernames: ['erin'], anonymous: 2 });
  });

  it('asks X for exactly the fields it needs, and 100 results a page', async () => {
    await x.client().searchRecent({ query: '#btc' });
    const [entry] = x.sim.state.requestLog.entries({ endpoint: 'search_recent' });
    expect(entry!.query).toEqual({
      query: '#btc',
      max_results: '100',
      'tweet.fields': POST_FIELDS,
      expansions: 'author_id,referenced_tweets.id,referenced_tweets.id.author_id,referenced_tweets.id.attachments.media_keys,attachments.media_keys',
      'user.fields': 'username,name,verified,verified_type,public_metrics',
      'media.fields': 'type,url,preview_image_url,width,height,alt_text',
    });
    expect(POST_FIELDS).toBe('created_at,lang,public_metrics,referenced_tweets,conversation_id,entities,author_id,in_reply_to_user_id,note_tweet,attachments,edit_history_tweet_ids,withheld');
  });

  it('returns posts newest first in one typed shape, with the author joined from includes.users', async () => {
    const page = await x.client().searchRecent({ query: '#btc' });
    expect(page.posts.map((post) => post.text)).toEqual(['@alice gm #btc', 'gm #BTC and $TSLA']);
    const root = page.posts[1]!;
    expect(root).toEqual<XPost>({
      id: rootId,
      rootId,
      text: 'gm #BTC and $TSLA',
      authorId: expect.any(String),
      author: { id: root.authorId!, username: 'alice', name: 'Alice Liddell', verified: false, followersCount: 0 },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
      lang: 'en',
      conversationId: rootId,
      inReplyToUserId: null,
      referencedPosts: [],
      isRetweet: false,
      isReply: false,
      isQuote: false,
      hashtags: [{ start: 3, end: 7, tag: 'BTC' }],
      cashtags: [{ start: 12, end: 17, tag: 'TSLA' }],
      mentions: [],
      urls: [],
      media: [],
      quoted: null,
      metrics: { retweetCount: 3, replyCount: 1, likeCount: 10, quoteCount: 0, bookmarkCount: 0, impressionCount: expect.any(Number) },
      editHistoryPostIds: [rootId],
      withheldIn: [],
    });
    const reply = page.posts[0]!;
    expect(reply).toMatchObject({ isReply: true, referencedPosts: [{ type: 'replied_to', id: rootId }], inReplyToUserId: root.authorId, conversationId: rootId });
    expect(reply.mentions).toEqual([{ start: 0, end: 6, username: 'alice', id: root.authorId }]);
    expect(page.meta).toEqual({ resultCount: 2, newestId: reply.id, oldestId: rootId, nextToken: null });
  });

  it('pages with nextToken and keeps since_id', async () => {
    for (let i = 0; i < 12; i += 1) x.sim.state.injectPost({ author: 'pager', text: `page ${i} #paging` });
    const client = x.client();
    const first = await client.searchRecent({ query: '#paging', maxResults: 10 });
    expect(first.posts).toHaveLength(10);
    const second = await client.searchRecent({ query: '#paging', maxResults: 10, nextToken: first.meta.nextToken! });
    expect(second.posts.map((post) => post.text)).toEqual(['page 1 #paging', 'page 0 #paging']);
    expect(second.meta.nextToken).toBeNull();
    const newer = await client.searchRecent({ query: '#paging', sinceId: first.meta.newestId! });
    expect(newer.posts).toEqual([]);
    expect(newer.meta.resultCount).toBe(0);
  });

  it('returns missing ids of a posts lookup as errors beside the found posts instead of throwing', async () => {
    const lookup = await x.client().postsByIds([rootId, '42', rootId]);
    expect(lookup.posts.map((post) => post.id)).toEqual([rootId]);
    expect(lookup.posts[0]!.metrics?.likeCount).toBe(10);
    expect(lookup.errors).toEqual([expect.objectContaining({ type: 'https://api.twitter.com/2/problems/resource-not-found', resourceId: '42', resourceType: 'tweet', parameter: 'ids' })]);
    expect(x.sim.state.requestLog.entries({ endpoint: 'posts_lookup' }).at(-1)!.query.ids).toBe(`${rootId},42`);
  });

  it('reads counts only with public_metrics and no expansions, missing ids as errors', async () => {
    const lookup = await x.client().postCounts([rootId, '42', rootId]);
    expect(lookup.posts).toEqual([{ id: rootId, metrics: { retweetCount: 3, replyCount: 1, likeCount: 10, quoteCount: 0, bookmarkCount: 0, impressionCount: expect.any(Number) } }]);
    expect(lookup.errors).toEqual([expect.objectContaining({ type: 'https://api.twitter.com/2/problems/resource-not-found', resourceId: '42' })]);
    expect(x.sim.state.requestLog.entries({ endpoint: 'posts_lookup' }).at(-1)!.query).toEqual({ ids: `${rootId},42`, 'tweet.fields': 'public_metrics' });
    expect(await x.client().postCounts([])).toEqual({ posts: [], errors: [] });
  });

  it('resolves handles, reporting unknown ones in errors and as a null user', async () => {
    const client = x.client();
    const many = await client.usersByUsernames(['ALICE', 'ghost']);
    expect(many.users).toEqual([{ id: expect.any(String), username: 'alice', name: 'Alice Liddell', verified: false, followersCount: null }]);
    expect(many.errors[0]).toMatchObject({ resourceType: 'user', value: 'ghost' });
    expect(await client.userByUsername('alice')).toEqual({ user: many.users[0], errors: [] });
    const ghost = await client.userByUsername('ghost');
    expect(ghost.user).toBeNull();
    expect(ghost.errors).toHaveLength(1);
  });

  it("reads a user's posts with since_id and exclude", async () => {
    const client = x.client();
    const bob = (await client.userByUsername('bob')).user!;
    x.sim.state.addRetweets(rootId, { usernames: ['bob'] });
    const all = await client.userPosts(bob.id);
    expect(all.posts.map((post) => post.isRetweet)).toEqual([true, false]);
    const originals = await client.userPosts(bob.id, { exclude: ['retweets', 'replies'] });
    expect(originals.posts).toEqual([]);
    const since = await client.userPosts(bob.id, { sinceId: all.posts[1]!.id });
    expect(since.posts.map((post) => post.id)).toEqual([all.posts[0]!.id]);
    expect(x.sim.state.requestLog.entries({ endpoint: 'user_posts' }).at(-1)!.query).toMatchObject({ since_id: all.posts[1]!.id, max_results: '100' });
  });

  it('lists liking users with the user token and retweeters with the app token', async () => {
    const likers = await x.client({ userToken: USER_TOKEN }).likingUsers(rootId);
    expect(likers.users.map((user) => user.username)).toEqual(['dave', 'carol']);
    expect(likers.meta).toEqual({ resultCount: 2, nextToken: null });
    expect(x.sim.state.requestLog.entries({ endpoint: 'liking_users' }).at(-1)!.tokenKind).toBe('user');
    const retweeters = await x.client().retweetedBy(rootId, { maxResults: 1 });
    expect(retweeters.users).toHaveLength(1);
    expect(retweeters.meta.nextToken).not.toBeNull();
  });

  it('throws XUserTokenRequiredError for liking users when no user token is configured, without calling X', async () => {
    const before = x.requests('liking_users');
    await expect(x.client().likingUsers(rootId)).rejects.toBeInstanceOf(XUserTokenRequiredError);
    expect(x.requests('liking_users')).toBe(before);
  });

  it('refuses invalid input before spending a request, and skips empty lookups', async () => {
    const client = x.client();
    const before = x.sim.state.requestLog.counters().totals.requests;
    const ids = Array.from({ length: 101 }, (_, i) => String(i + 1));
    await expect(client.postsByIds(ids)).rejects.toBeInstanceOf(XInvalidRequestError);
    await expect(client.postsByIds(['12a'])).rejects.toBeInstanceOf(XInvalidRequestError);
    await expect(client.usersByUsernames(['not a handle'])).rejects.toBeInstanceOf(XInvalidRequestError);
    await expect(client.searchRecent({ query: `#${'a'.repeat(512)}` })).rejects.toThrow(/513 characters; the X plan accepts 512/);
    await expect(client.searchRecent({ query: '#a', maxResults: 5 })).rejects.toBeInstanceOf(XInvalidRequestError);
    expect(await client.postsByIds([])).toEqual({ posts: [], includedPosts: [], errors: [], malformed: [] });
    expect(await client.usersByUsernames([])).toEqual({ users: [], errors: [] });
    expect(x.sim.state.requestLog.counters().totals.requests).toBe(before);
  });

  it('sends start_time in whole seconds', async () => {
    await x.client().searchRecent({ query: '#btc', startTime: new Date('2026-11-22T11:59:30.750Z') }).catch(() => undefined);
    expect(x.sim.state.requestLog.entries({ endpoint: 'search_recent' }).at(-1)!.query.start_time).toBe('2026-11-22T11:59:30Z');
  });

  it('sends end_time rounded up to the second, so the window keeps its last post', async () => {
    await x.client().searchRecent({ query: '#btc', endTime: new Date('2026-11-22T11:59:30.250Z') }).catch(() => undefined);
    expect(x.sim.state.requestLog.entries({ endpoint: 'search_recent' }).at(-1)!.query.end_time).toBe('2026-11-22T11:59:31Z');
  });
});

describe('createXClient against the simulator (2.167 spellings)', () => {
  const oldNames = useXClientFixture({ naming: 'v2.166' });
  const newNames = useXClientFixture({ naming: 'v2.167' });

  it('normalises repost_count, referenced_posts and edit_history_post_ids into the same shape as the old names', async () => {
    const results = [];
    // One publication time for both simulators: posts made "now" in each could fall on either side of a second.
    const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString();
    for (const x of [oldNames, newNames]) {
      const root = x.sim.state.injectPost({ author: 'alice', text: 'root #eth', created_at: createdAt });
      x.sim.state.addReply(root.id, { author: 'bob', text: 'reply #eth', created_at: createdAt });
      x.sim.state.addRetweets(root.id, { anonymous: 4 });
      const page = await x.client().searchRecent({ query: '#eth' });
      results.push(page.posts.map(({ id, authorId, author, conversationId, inReplyToUserId, referencedPosts, editHistoryPostIds, ...rest }) => ({
        ...rest,
        author: author?.username,
        replyTo: referencedPosts.map((ref) => ref.type),
        ids: [id, authorId, conversationId, inReplyToUserId, ...editHistoryPostIds].every((value) => value === null || /^\d+$/.test(value)),
      })));
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[0]![1]).toMatchObject({ author: 'alice', metrics: { retweetCount: 4, replyCount: 1 } });
    expect(results[0]![0]).toMatchObject({ isReply: true, replyTo: ['replied_to'] });
  });

  it('reads repost_count as the retweet count of the counts-only lookup', async () => {
    const counts = [];
    for (const x of [oldNames, newNames]) {
      const post = x.sim.state.injectPost({ author: 'carol', text: 'counted #eth' });
      x.sim.state.addRetweets(post.id, { anonymous: 6 });
      x.sim.state.addLikes(post.id, { anonymous: 2 });
      counts.push((await x.client().postCounts([post.id])).posts[0]?.metrics);
    }
    expect(counts[0]).toMatchObject({ retweetCount: 6, likeCount: 2, replyCount: 0 });
    expect(counts[1]).toEqual(counts[0]);
  });

  it('reads the 2.167 problem type URLs of partial errors', async () => {
    const lookup = await newNames.client().postsByIds(['7']);
    expect(lookup.errors[0]!.type).toBe('https://api.x.com/2/problems/resource-not-found');
  });
});

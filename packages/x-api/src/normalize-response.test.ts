import request from 'supertest';
import { normalizePostLookup } from './normalize-response';
import { postListResponseSchema } from './x-response.schema';
import { APP_TOKEN, useXClientFixture } from './test-support/x-client-fixture';

// The client itself never asks for referenced posts; these bodies come from the simulator asked directly.
describe('normalizePostLookup on real simulator bodies', () => {
  const oldNames = useXClientFixture({ naming: 'v2.166' });
  const newNames = useXClientFixture({ naming: 'v2.167' });

  it.each([
    ['includes.tweets (2.166)', () => oldNames, 'tweets'],
    ['includes.posts (2.167)', () => newNames, 'posts'],
  ] as const)('reads referenced posts from %s into includedPosts', async (_what, harness, key) => {
    const x = harness();
    const root = x.sim.state.injectPost({ author: 'alice', text: 'quoted #q' });
    const quote = x.sim.state.injectPost({ author: 'bob', text: 'look #q', quote_of: root.id });
    const res = await request(x.url)
      .get('/2/tweets')
      .query({ ids: quote.id, 'tweet.fields': 'referenced_tweets,author_id,public_metrics', expansions: 'referenced_tweets.id,referenced_tweets.id.author_id,author_id' })
      .set({ Authorization: `Bearer ${APP_TOKEN}` })
      .expect(200);
    expect(res.body.includes[key]).toHaveLength(1);
    const lookup = normalizePostLookup(postListResponseSchema.parse(res.body));
    expect(lookup.posts[0]).toMatchObject({ id: quote.id, isQuote: true, referencedPosts: [{ type: 'quoted', id: root.id }], author: { username: 'bob' } });
    expect(lookup.includedPosts).toEqual([expect.objectContaining({ id: root.id, text: 'quoted #q', metrics: expect.objectContaining({ quoteCount: 1 }), author: expect.objectContaining({ username: 'alice' }) })]);
  });
});

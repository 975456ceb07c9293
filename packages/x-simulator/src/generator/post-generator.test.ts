import { PostGenerator } from './post-generator';
import { ZipfSampler, seededRandom } from './zipf';
import { SimStore } from '../store/sim-store';

describe('ZipfSampler', () => {
  it('draws rank 0 about twice as often as rank 1 with exponent 1', () => {
    const sampler = new ZipfSampler(10, 1, seededRandom(7));
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 20_000; i += 1) counts[sampler.sample()]! += 1;
    expect(counts[0]! / counts[1]!).toBeGreaterThan(1.8);
    expect(counts[0]! / counts[1]!).toBeLessThan(2.2);
    expect(counts[9]).toBeGreaterThan(0);
  });
});

describe('PostGenerator', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');

  it('produces posts whose most frequent tag is the first of the vocabulary', () => {
    const store = new SimStore(() => now);
    const generator = new PostGenerator(store, { now: () => now, indexLagMs: 0 }, { tags: ['top', 'mid', 'low'], replyRate: 0, retweetRate: 0 });
    const posts = generator.produce(300);
    const counts = new Map<string, number>();
    for (const post of posts) for (const tag of post.hashtagKeys) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    expect(counts.get('top')!).toBeGreaterThan(counts.get('mid')!);
    expect(counts.get('mid')!).toBeGreaterThan(counts.get('low')!);
    expect(posts.every((post) => post.entities.hashtags.length >= 1)).toBe(true);
  });

  it('produces the same stream for the same seed', () => {
    const run = () => {
      const store = new SimStore(() => now);
      return new PostGenerator(store, { now: () => now, indexLagMs: 0 }, { seed: 3 }).produce(20).map((post) => post.text);
    };
    expect(run()).toEqual(run());
  });

  it('makes replies, retweets and likes on recent posts at the configured rates', () => {
    const store = new SimStore(() => now);
    const generator = new PostGenerator(store, { now: () => now, indexLagMs: 0 }, { replyRate: 0.3, retweetRate: 0.2, likesPerPost: 2 });
    const posts = generator.produce(500);
    const kinds = (type: string) => posts.filter((post) => post.references.some((ref) => ref.type === type)).length;
    expect(kinds('replied_to')).toBeGreaterThan(75);
    expect(kinds('retweeted')).toBeGreaterThan(25);
    expect(posts.reduce((sum, post) => sum + post.metrics.likes, 0)).toBeGreaterThan(500);
  });

  it('draws authors Zipf-distributed too: user0001 writes most, then user0002', () => {
    const store = new SimStore(() => now);
    const generator = new PostGenerator(store, { now: () => now, indexLagMs: 0 }, { replyRate: 0, retweetRate: 0, likesPerPost: 0, authorCount: 50, seed: 11 });
    const counts = new Map<string, number>();
    for (const post of generator.produce(3000)) {
      const author = store.userById(post.authorId)?.username ?? '';
      counts.set(author, (counts.get(author) ?? 0) + 1);
    }
    expect(counts.get('user0001')!).toBeGreaterThan(counts.get('user0002')!);
    expect(counts.get('user0002')!).toBeGreaterThan(counts.get('user0010')!);
    expect(counts.size).toBeGreaterThan(30);
  });

  it('posts postsPerSecond times the elapsed time on its timer while started, and nothing once stopped', async () => {
    // The generator owes posts by its clock, not by how many timer ticks ran: a loaded machine that delays
    // the timer changes when the posts appear, not how many.
    let clock = now;
    const store = new SimStore(() => clock);
    const generator = new PostGenerator(store, { now: () => clock, indexLagMs: 0 }, {});
    generator.start({ postsPerSecond: 50 });
    clock += 1000;
    const deadline = Date.now() + 10_000;
    while (store.postCount() < 50 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.postCount()).toBe(50);
    generator.stop();
    clock += 1000;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(store.postCount()).toBe(50);
  });
});

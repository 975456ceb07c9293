import { useTestEnvironment } from '@hashwatch/testing';
import { SampleBudget } from './sample-budget';

const X_LIKES = { perWindow: 75, windowSeconds: 900, burst: 15 };
const allowances = { like: X_LIKES, retweet: X_LIKES, reply: { perWindow: 150, windowSeconds: 900, burst: 30 } };

describe('SampleBudget', () => {
  const env = useTestEnvironment();
  const t0 = new Date('2026-11-22T12:00:00Z');
  const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
  let prefixes = 0;
  // A fresh bucket per test: each test takes its own key prefix under the file's.
  const budget = () => new SampleBudget(env.redis, `${env.queuePrefix}:t${(prefixes += 1)}`, allowances);

  it('grants the burst at once, then nothing until tokens trickle back', async () => {
    const likes = budget();
    expect(await likes.take('like', 100, t0)).toBe(15);
    expect(await likes.take('like', 100, t0)).toBe(0);
    // (75 - 15) per 900 s: one every 15 s.
    expect(await likes.take('like', 100, at(150))).toBe(10);
  });

  it('never grants more than X allows in any 15-minute window, however often it is asked', async () => {
    const likes = budget();
    const grants: { second: number; granted: number }[] = [];
    for (let second = 0; second < 3 * 900; second += 7) grants.push({ second, granted: await likes.take('like', 50, at(second)) });
    for (let start = 0; start < 2 * 900; start += 7) {
      const inWindow = grants.filter((g) => g.second >= start && g.second < start + 900).reduce((sum, g) => sum + g.granted, 0);
      expect(inWindow).toBeLessThanOrEqual(75);
    }
    expect(grants.reduce((sum, g) => sum + g.granted, 0)).toBeGreaterThanOrEqual(3 * 60);
  });

  it('is one bucket for every replica on the same prefix, and one per category', async () => {
    const replicaA = new SampleBudget(env.redis, `${env.queuePrefix}:shared`, allowances);
    const replicaB = new SampleBudget(env.redis, `${env.queuePrefix}:shared`, allowances);
    const [a, b] = await Promise.all([replicaA.take('like', 10, t0), replicaB.take('like', 10, t0)]);
    expect(a + b).toBe(15);
    expect(await replicaB.take('retweet', 10, t0)).toBe(10);
  });

  it('takes back calls that were not made, up to the burst', async () => {
    const likes = budget();
    expect(await likes.take('like', 15, t0)).toBe(15);
    await likes.giveBack('like', 4);
    expect(await likes.take('like', 100, t0)).toBe(4);
    await likes.giveBack('like', 1000);
    expect(await likes.take('like', 100, t0)).toBe(15);
  });

  it('refills nothing for a caller whose clock is behind', async () => {
    const likes = budget();
    expect(await likes.take('like', 15, at(600))).toBe(15);
    expect(await likes.take('like', 15, at(0))).toBe(0);
  });
});

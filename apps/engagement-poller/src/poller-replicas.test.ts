import { handles, usePollerFixture } from './test-support/poller-fixture';

const MINUTE = 60_000;

describe('several poller replicas on one database and Redis', () => {
  const f = usePollerFixture();
  const pool = () => f.env.database.db.pool;

  it('look each post up once per refresh and sample, store and alert each engager once, when their cycles run at once and a sample waits for a later cycle', async () => {
    const first = await f.account({ refreshSeconds: 60 });
    const second = await f.account({ refreshSeconds: 60 });
    // 230 posts: three lookup batches a replica could split; the first 30 with named engagers, tracked by both accounts.
    const posts = Array.from({ length: 230 }, (_, i) => f.post(`crowd${i % 9}`, `post ${i} #btc`));
    const engaged = posts.slice(0, 30);
    engaged.forEach((post, i) => {
      f.sim.state.addLikes(post.id, { usernames: handles(`l${i}x`, 2) });
      f.sim.state.addRetweets(post.id, { usernames: handles(`r${i}x`, 1) });
    });
    for (const post of posts) await f.detect(first, post);
    for (const post of engaged) await f.detect(second, post);
    const replicas = [f.poller({ lookupConcurrency: 2, sampleConcurrency: 2 }), f.poller({ lookupConcurrency: 2, sampleConcurrency: 2 }), f.poller({ lookupConcurrency: 2, sampleConcurrency: 2 })];
    f.sim.state.requestLog.clear();

    const reports = await Promise.all(replicas.map((replica) => replica.runCycle()));
    // A replica skips a sample whose post another holds (SKIP LOCKED), and the shared budget may be taken by the
    // others until they give back what they did not spend: such samples wait for a later cycle, never repeat.
    // Cycles at the same instant (nothing due to look up again) take them until a round samples nothing.
    const sampleCalls = () => f.requests('liking_users') + f.requests('retweeted_by');
    for (let round = 0, before = -1; round < 3 && sampleCalls() !== before; round += 1) {
      before = sampleCalls();
      await Promise.all(replicas.map((replica) => replica.runCycle()));
    }

    const looked = f.sim.state.requestLog.entries({ endpoint: 'posts_lookup' }).flatMap((entry) => String(entry.query.ids).split(','));
    expect(looked.sort()).toEqual(posts.map((post) => post.id).sort());
    expect(reports.reduce((sum, report) => sum + report.counts.refreshed, 0)).toBe(230);
    for (const endpoint of ['liking_users', 'retweeted_by'] as const) {
      const sampled = f.sim.state.requestLog.entries({ endpoint }).map((entry) => entry.path.split('/')[3]);
      expect(sampled.sort()).toEqual(engaged.map((post) => post.id).sort());
    }
    for (const user of [first, second]) {
      const items = await f.engagementItems(user);
      expect(items).toHaveLength(30 * 3);
      expect(new Set(items.map((item) => item.dedupe_key)).size).toBe(90);
      const { rows } = await pool().query<{ alerts_used: number }>(
        'SELECT p.alerts_used FROM usage_periods p JOIN users u ON u.id = p.user_id AND p.period_start = u.current_period_start WHERE u.id = $1',
        [user],
      );
      expect(rows[0]?.alerts_used).toBe(90);
      const alerted = await f.alertedItemIds();
      expect(alerted.filter((id) => items.some((item) => item.id === id))).toEqual(items.map((item) => item.id).sort());
    }

    // The next refresh, again on every replica at once: nothing new, nothing stored again, still one lookup per post.
    f.sim.state.requestLog.clear();
    f.clock.advance(MINUTE);
    await Promise.all(replicas.map((replica) => replica.runCycle()));
    const again = f.sim.state.requestLog.entries({ endpoint: 'posts_lookup' }).flatMap((entry) => String(entry.query.ids).split(','));
    expect(again.sort()).toEqual(posts.map((post) => post.id).sort());
    expect(f.requests('liking_users') + f.requests('retweeted_by')).toBe(0);
    expect(await f.engagementItems(first)).toHaveLength(90);
    expect(await f.engagementItems(second)).toHaveLength(90);
  });
});

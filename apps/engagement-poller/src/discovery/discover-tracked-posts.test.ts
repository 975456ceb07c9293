import { usePollerFixture } from '../test-support/poller-fixture';

// Discovery's Redis watermark may lag behind another replica's, or be lost: re-reading detections that
// are already polled must never make their posts due again (a second lookup in the same cycle).
describe('discovering tracked posts again', () => {
  const f = usePollerFixture();
  const pool = () => f.env.database.db.pool;

  beforeEach(() => f.clock.set(new Date()));

  it('polls nothing early when discovery re-reads detections it already brought in (a lost or lagging watermark)', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post('jo', 'gm #btc');
    f.sim.state.addLikes(post.id, { anonymous: 2 });
    const itemId = await f.detect(user, post);
    const poller = f.poller();
    await poller.runCycle();
    const refreshed = await f.item(itemId);
    expect(refreshed.like_count).toBe(2);

    // Another replica's discovery, whose watermark is behind (or lost), reads the same detections again.
    await f.env.redis.del(`${f.env.queuePrefix}:engagement:discovered-until`);
    f.sim.state.requestLog.clear();
    f.clock.advance(30_000);
    const report = await poller.runCycle();

    expect(report.discovered.items).toBeGreaterThanOrEqual(1);
    const looked = f.sim.state.requestLog.entries({ endpoint: 'posts_lookup' }).flatMap((entry) => String(entry.query.ids).split(','));
    expect(looked).not.toContain(post.id);
    const { rows } = await pool().query('SELECT next_poll_at FROM engagement_states WHERE x_post_id = $1', [post.id]);
    expect(rows[0]).toEqual({ next_poll_at: new Date(f.clock.now().getTime() + 30_000) });
  });

  it('polls nothing early when discovery re-reads a post whose fastest account is no longer served', async () => {
    const fast = await f.account({ refreshSeconds: 60 });
    const slow = await f.account({ refreshSeconds: 300 });
    const post = f.post('jo', 'gm #btc');
    await f.detect(fast, post);
    await f.detect(slow, post);
    const poller = f.poller();
    await poller.runCycle();
    await pool().query("UPDATE users SET subscription_status = 'canceled' WHERE id = $1", [fast]);
    f.clock.advance(60_000);
    await poller.runCycle();
    const { rows: before } = await pool().query('SELECT interval_seconds, next_poll_at FROM engagement_states WHERE x_post_id = $1', [post.id]);
    expect(before[0]).toMatchObject({ interval_seconds: 300 });

    // A replica whose watermark is lost reads both detections again, the canceled account's included.
    await f.env.redis.del(`${f.env.queuePrefix}:engagement:discovered-until`);
    f.sim.state.requestLog.clear();
    f.clock.advance(30_000);
    await poller.runCycle();

    const looked = f.sim.state.requestLog.entries({ endpoint: 'posts_lookup' }).flatMap((entry) => String(entry.query.ids).split(','));
    expect(looked).not.toContain(post.id);
    const { rows: after } = await pool().query('SELECT interval_seconds, next_poll_at FROM engagement_states WHERE x_post_id = $1', [post.id]);
    expect(after[0]).toEqual(before[0]);
  });
});

import { handles, usePollerFixture } from './test-support/poller-fixture';

const HOUR = 3_600_000;

// Detections are back-dated before the first cycle of this file: discovery reads detected_at above a
// watermark, which a back-dated item in a file that already ran cycles would sit below.
describe('the 48-hour engagement window', () => {
  const f = usePollerFixture();
  const pool = () => f.env.database.db.pool;

  it('follows each account within its own 48 hours and stops polling once every window has closed', async () => {
    const start = new Date();
    const early = await f.account({ refreshSeconds: 60 });
    const late = await f.account({ refreshSeconds: 300 });
    const post = f.post('ivy', 'gm #btc');
    const solo = f.post('jay', 'solo #btc');
    const earlyItem = await f.detect(early, post, { detectedAt: new Date(start.getTime() - 10 * HOUR) });
    const lateItem = await f.detect(late, post, { detectedAt: start });
    const soloItem = await f.detect(early, solo, { detectedAt: start });
    f.sim.state.addLikes(post.id, { usernames: handles('a', 2) });
    f.sim.state.addLikes(solo.id, { anonymous: 1 });
    const poller = f.poller();

    f.clock.set(start);
    await poller.runCycle();
    expect(await f.item(earlyItem)).toMatchObject({ like_count: 2 });
    expect(await f.item(lateItem)).toMatchObject({ like_count: 2 });
    const { rows } = await pool().query('SELECT poll_until, interval_seconds FROM engagement_states WHERE x_post_id = $1', [post.id]);
    expect(rows[0]).toEqual({ poll_until: new Date(start.getTime() + 48 * HOUR), interval_seconds: 60 });

    // 38 h 1 min after the start the early account's window (detected 10 h before) has closed: its item keeps
    // its last values and gets no new engagers; the late account's item goes on, now at its own cadence.
    f.clock.set(new Date(start.getTime() + 38 * HOUR + 60_000));
    f.sim.state.addLikes(post.id, { usernames: ['b0001'] });
    f.sim.state.addLikes(solo.id, { anonymous: 1 });
    await poller.runCycle();
    expect(await f.item(earlyItem)).toMatchObject({ like_count: 2 });
    expect(await f.item(lateItem)).toMatchObject({ like_count: 3 });
    expect((await f.engagementItems(early, earlyItem)).map((e) => e.author)).toEqual(['@a0001', '@a0002']);
    expect((await f.engagementItems(late, lateItem)).map((e) => e.author)).toEqual(['@a0001', '@a0002', '@b0001']);
    expect((await pool().query('SELECT interval_seconds FROM engagement_states WHERE x_post_id = $1', [post.id])).rows[0]).toEqual({ interval_seconds: 300 });

    // One second before 48 h: still polled.
    f.clock.set(new Date(start.getTime() + 48 * HOUR - 1_000));
    f.sim.state.addLikes(solo.id, { anonymous: 1 });
    await poller.runCycle();
    expect(await f.item(soloItem)).toMatchObject({ like_count: 3 });

    // Past 48 h: no lookup at all, values frozen.
    f.clock.set(new Date(start.getTime() + 48 * HOUR + 1_000));
    f.sim.state.addLikes(post.id, { usernames: ['c0001'] });
    f.sim.state.addLikes(solo.id, { anonymous: 1 });
    const lookups = f.requests('posts_lookup');
    const report = await poller.runCycle();
    expect(f.requests('posts_lookup')).toBe(lookups);
    expect(report.counts.refreshed).toBe(0);
    expect(await f.item(lateItem)).toMatchObject({ like_count: 3 });
    expect(await f.item(soloItem)).toMatchObject({ like_count: 3 });
    expect(await f.engagementItems(late, lateItem)).toHaveLength(3);
  });

  it('does not bring a detection older than 48 hours into polling', async () => {
    const user = await f.account();
    const post = f.post('kim', 'old #btc');
    const itemId = await f.detect(user, post);
    f.sim.state.addLikes(post.id, { anonymous: 2 });
    f.clock.set(new Date(Date.now() + 49 * HOUR));
    const report = await f.poller().runCycle();
    expect(report.counts.refreshed).toBe(0);
    expect(await f.item(itemId)).toMatchObject({ like_count: 0, engagement_updated_at: null });
  });
});

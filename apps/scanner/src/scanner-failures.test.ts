import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@hashwatch/testing';
import { useScannerFixture } from './test-support/scanner-fixture';

describe('scanner quota and upstream failures', () => {
  const fx = useScannerFixture();

  async function tick() {
    await fx.makeDue();
    return fx.scanner().runTick();
  }

  async function trackHealth(trackId: string) {
    const { rows } = await fx.pool().query<{ scan_error: string | null; last_scanned_at: Date | null }>(
      'SELECT scan_error, last_scanned_at FROM tracks WHERE id = $1',
      [trackId],
    );
    return rows[0];
  }

  it('stores the oldest posts up to the alert quota, then nothing, without an error, and the cursor still advances', async () => {
    const user = await fx.account({ alertsLimit: 3 });
    const trackId = await fx.track(user, 'iron');
    const posts = Array.from({ length: 5 }, (_, i) => fx.sim.state.injectPost({ author: 'ada', text: `#iron ${i}` }));
    const first = await tick();

    expect(first.overQuota).toBe(2);
    const items = await fx.items(user);
    expect(items.map((item) => item.x_post_id)).toEqual(posts.slice(0, 3).map((post) => post.id));
    expect(await fx.usage(user)).toMatchObject({ alerts_used: 3 });
    await waitFor(async () => (await fx.alertedItemIds()).length >= 3, 5000, 'alert jobs');
    const alerted = await fx.alertedItemIds();
    for (const item of items) expect(alerted).toContain(item.id);

    const later = fx.sim.state.injectPost({ author: 'ada', text: '#iron later' });
    const summary = await tick();
    expect(summary).toMatchObject({ failed: 0, stored: 0, overQuota: 1 });
    expect(await fx.items(user)).toHaveLength(3);
    expect(await fx.usage(user)).toMatchObject({ alerts_used: 3 });
    // Alert jobs exist for the stored items only: none for the posts over the quota.
    expect((await fx.alertJobs()).filter((job) => job.userId === user).map((job) => job.feedItemId).sort()).toEqual(items.map((item) => item.id).sort());
    expect(await trackHealth(trackId)).toMatchObject({ scan_error: null });
    const { rows } = await fx.pool().query(`SELECT since_id FROM source_cursors WHERE source_key = 'tag:iron'`);
    expect(rows[0]?.since_id).toBe(later.id);
  });

  it('records a 429 on the track, waits for the reset shared by every replica, then stores every post', async () => {
    const user = await fx.account();
    const trackId = await fx.track(user, 'argon');
    const posts = Array.from({ length: 3 }, (_, i) => fx.sim.state.injectPost({ author: 'bo', text: `#argon ${i}` }));
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'rate_limited', count: 1 });
    const failed = await tick();

    expect(failed.failed).toBeGreaterThan(0);
    expect(await fx.items(user)).toHaveLength(0);
    const health = await trackHealth(trackId);
    expect(health?.scan_error).toMatch(/^X rate limit: retrying at \d{4}-\d\d-\d\dT/);
    const resetAt = Date.parse((health?.scan_error as string).replace('X rate limit: retrying at ', ''));
    const { rows } = await fx.pool().query<{ next_scan_at: Date }>(`SELECT next_scan_at FROM source_cursors WHERE source_key = 'tag:argon'`);
    expect(rows[0]?.next_scan_at.getTime()).toBeGreaterThanOrEqual(resetAt - 1);

    // Another replica asking before the reset is stopped by the shared budget without reaching X.
    const requests = fx.searchRequests();
    await tick();
    expect(fx.searchRequests()).toBe(requests);

    await sleep(Math.max(0, resetAt - Date.now()) + 300);
    await fx.scanner().runTick();
    expect((await fx.items(user)).map((item) => item.x_post_id)).toEqual(posts.map((post) => post.id));
    expect(await trackHealth(trackId)).toMatchObject({ scan_error: null });
  });

  it('retries a 503 within the cycle and stores every post', async () => {
    const user = await fx.account();
    await fx.track(user, 'neon');
    const post = fx.sim.state.injectPost({ author: 'cy', text: '#neon sign' });
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'unavailable', count: 2 });
    await tick();
    expect((await fx.items(user)).map((item) => item.x_post_id)).toEqual([post.id]);
  });

  it('backs off after repeated 503s, shows the reason, and stores every post on a later cycle', async () => {
    const user = await fx.account();
    const trackId = await fx.track(user, 'xenon');
    const post = fx.sim.state.injectPost({ author: 'di', text: '#xenon lamp' });
    fx.sim.state.injectFault({ endpoint: '*', kind: 'unavailable', count: 3 });
    await tick();
    expect(await fx.items(user)).toHaveLength(0);
    expect(await trackHealth(trackId)).toMatchObject({ scan_error: 'X answered 503' });
    const { rows } = await fx.pool().query<{ failures: number; wait: number }>(
      `SELECT failures, extract(epoch FROM next_scan_at - now()) AS wait FROM source_cursors WHERE source_key = 'tag:xenon'`,
    );
    expect(rows[0]?.failures).toBe(1);
    expect(Number(rows[0]?.wait)).toBeLessThanOrEqual(1.1);

    await sleep(1100);
    await fx.scanner().runTick();
    expect((await fx.items(user)).map((item) => item.x_post_id)).toEqual([post.id]);
    expect(await trackHealth(trackId)).toMatchObject({ scan_error: null, last_scanned_at: expect.any(Date) });
  });

  it('shows "user not found" for a handle X does not know and leaves it out of queries', async () => {
    const user = await fx.account();
    const accountId = await fx.accountTrack(user, 'nobody_here');
    const known = await fx.accountTrack(user, 'somebody');
    fx.sim.state.createUser({ username: 'somebody' });
    const before = fx.searchRequests();
    await tick();

    const { rows } = await fx.pool().query('SELECT id, scan_error, x_user_id FROM account_tracks WHERE id = ANY($1) ORDER BY id', [[accountId, known]]);
    expect(rows).toEqual(
      expect.arrayContaining([
        { id: accountId, scan_error: 'user not found', x_user_id: null },
        { id: known, scan_error: null, x_user_id: fx.sim.state.store.userByUsername('somebody')?.id },
      ]),
    );
    const queries = fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).slice(before).map((entry) => String(entry.query.query));
    expect(queries.some((query) => query.includes('from:somebody'))).toBe(true);
    expect(queries.some((query) => query.includes('from:nobody_here'))).toBe(false);
  });

  it('gives the quota to the oldest posts of a multi-page cycle when an account is close to its limit', async () => {
    const user = await fx.account({ alertsLimit: 150 });
    await fx.track(user, 'boron');
    const posts = Array.from({ length: 250 }, (_, i) => fx.sim.state.injectPost({ author: 'eve', text: `#boron ${i}` }));
    await tick();
    expect((await fx.items(user)).map((item) => item.x_post_id)).toEqual(posts.slice(0, 150).map((post) => post.id));
    expect(await fx.usage(user)).toMatchObject({ alerts_used: 150 });
  });

  it('keeps the pages stored before a later page failed, and stores the rest once, without a second item or unit', async () => {
    const user = await fx.account();
    const trackId = await fx.track(user, 'carbon');
    const posts = Array.from({ length: 250 }, (_, i) => fx.sim.state.injectPost({ author: 'fay', text: `#carbon ${i}` }));
    // Page 1 is served (a zero-delay fault only marks it), then page 2 and both its retries answer 503.
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'slow', count: 1, delay_ms: 0 });
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'unavailable', count: 3 });
    await tick();
    expect(await fx.items(user)).toHaveLength(100);
    expect(await trackHealth(trackId)).toMatchObject({ scan_error: 'X answered 503' });
    const { rows } = await fx.pool().query(`SELECT since_id FROM source_cursors WHERE source_key = 'tag:carbon'`);
    expect(rows[0]?.since_id).toBeNull();

    await tick();
    const items = await fx.items(user);
    expect(items.map((item) => item.x_post_id)).toEqual(posts.map((post) => post.id));
    expect(await fx.usage(user)).toMatchObject({ alerts_used: 250 });
    await waitFor(async () => (await fx.alertedItemIds()).filter((id) => items.some((item) => item.id === id)).length === 250, 5000, 'alert jobs');
  });
});

import { createAccount } from '@hashwatch/accounts';
import { updatePlan, type PlanId } from '@hashwatch/plans';
import { useTestEnvironment } from '@hashwatch/testing';
import { countRows, seedChannel, seedDelivery, seedEngagementState, seedItem, seedItems, seedPost } from '../test-support/retention-seed';
import { sweepRetention, type SweepLimits } from './retention-sweep';
import { DELETE_EXPIRED_ITEMS, PICK_ORPHAN_POSTS } from './retention-statements';

const NOW = new Date('2026-11-27T12:00:00Z');
const DAY_MS = 86_400_000;
const QUICK: Partial<SweepLimits> = { pauseMs: 0 };

describe('retention sweep', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  let emails = 0;
  const account = async (planId: PlanId) => (await createAccount(env.database.db.prisma, { email: `ret${(emails += 1)}@example.com`, planId })).accountId;
  const sweep = (limits: Partial<SweepLimits> = {}) => sweepRetention(pool(), { now: () => NOW, limits: { ...QUICK, ...limits } });
  const itemIds = async (userId: string) =>
    (await pool().query<{ id: string }>('SELECT id FROM feed_items WHERE user_id = $1 ORDER BY id', [userId])).rows.map((row) => row.id);
  const postExists = async (id: string) => (await pool().query('SELECT 1 FROM x_posts WHERE id = $1', [id])).rowCount === 1;

  afterEach(async () => {
    await pool().query('DELETE FROM users');
    await pool().query('DELETE FROM x_posts');
    await pool().query('DELETE FROM engagement_states');
    for (const plan of ['starter', 'pro', 'business'] as const) await updatePlan(env.database.db.prisma, plan, { retentionDays: 90 });
  });

  it("deletes each plan's items past its own retention with their sources rows, and keeps the rest", async () => {
    await updatePlan(env.database.db.prisma, 'business', { retentionDays: 365 });
    const starter = await account('starter');
    const business = await account('business');
    const expired = await seedItem(pool(), NOW, { userId: starter, postId: '101', ageDays: 91, sources: ['#btc', '@writer'] });
    const kept = await seedItem(pool(), NOW, { userId: starter, postId: '102', ageDays: 89 });
    const oldButKept = await seedItem(pool(), NOW, { userId: business, postId: '103', ageDays: 200 });
    const businessExpired = await seedItem(pool(), NOW, { userId: business, postId: '104', ageDays: 366 });

    const summary = await sweep();

    expect(await itemIds(starter)).toEqual([kept]);
    expect(await itemIds(business)).toEqual([oldButKept]);
    expect(summary).toMatchObject({ items: 2, itemSources: 3, posts: 2, budgetSpent: false });
    const { rows } = await pool().query<{ item_id: string }>('SELECT item_id FROM feed_item_sources ORDER BY item_id');
    expect(rows.map((row) => row.item_id)).toEqual([kept, oldButKept].sort());
    expect([expired, businessExpired].every((id) => !rows.some((row) => row.item_id === id))).toBe(true);
    expect(await postExists('101')).toBe(false);
    expect(await postExists('104')).toBe(false);
    expect(await postExists('102')).toBe(true);
    // A second run finds nothing to do.
    expect(await sweep()).toMatchObject({ items: 0, posts: 0 });
  });

  it('deletes the deliveries of expired items, and keeps an item whose delivery is still pending until it is sent', async () => {
    const user = await account('pro');
    const channel = await seedChannel(pool(), user);
    const delivered = await seedItem(pool(), NOW, { userId: user, postId: '201', ageDays: 120 });
    const failed = await seedItem(pool(), NOW, { userId: user, postId: '202', ageDays: 120 });
    const pending = await seedItem(pool(), NOW, { userId: user, postId: '203', ageDays: 120 });
    for (const [feedItemId, status] of [[delivered, 'delivered'], [failed, 'failed'], [pending, 'pending']] as const) {
      await seedDelivery(pool(), { userId: user, channelId: channel, feedItemId, status });
    }

    await sweep();
    expect(await itemIds(user)).toEqual([pending]);
    expect(await countRows(pool(), user)).toMatchObject({ items: 1, deliveries: 1, sources: 1 });
    expect(await postExists('203')).toBe(true);

    await pool().query(`UPDATE deliveries SET status = 'delivered' WHERE feed_item_id = $1`, [pending]);
    await sweep();
    expect(await countRows(pool(), user)).toMatchObject({ items: 0, deliveries: 0, sources: 0, posts: 0 });
  });

  it('keeps a post another item still references, and deletes it with the last one', async () => {
    await updatePlan(env.database.db.prisma, 'business', { retentionDays: 365 });
    const starter = await account('starter');
    const business = await account('business');
    await seedItem(pool(), NOW, { userId: starter, postId: '301', ageDays: 100 });
    await seedItem(pool(), NOW, { userId: business, postId: '301', ageDays: 100 });

    expect(await sweep()).toMatchObject({ items: 1, posts: 0 });
    expect(await postExists('301')).toBe(true);

    await updatePlan(env.database.db.prisma, 'business', { retentionDays: 90 });
    expect(await sweep()).toMatchObject({ items: 1, posts: 1 });
    expect(await postExists('301')).toBe(false);
  });

  it('deletes orphan posts older than every retention with their engagement state, but not one still polled', async () => {
    await seedPost(pool(), '401', NOW, 95); // never stored in a feed (over a quota), past every retention
    await seedPost(pool(), '402', NOW, 60); // too young: an account on a longer plan could still hold it
    await seedPost(pool(), '403', NOW, 95);
    await seedEngagementState(pool(), '401', new Date(NOW.getTime() - 90 * DAY_MS));
    await seedEngagementState(pool(), '403', new Date(NOW.getTime() + DAY_MS));

    expect(await sweep()).toMatchObject({ posts: 1, engagementStates: 1 });
    expect([await postExists('401'), await postExists('402'), await postExists('403')]).toEqual([false, true, true]);
    expect((await pool().query('SELECT x_post_id FROM engagement_states')).rows).toEqual([{ x_post_id: '403' }]);
  });

  it("deletes resolved notices past their plan's retention with their sends, and keeps open ones whatever their age", async () => {
    await updatePlan(env.database.db.prisma, 'business', { retentionDays: 365 });
    const starter = await account('starter');
    const business = await account('business');
    const channel = await seedChannel(pool(), starter);
    const notice = async (userId: string, id: string, openedDays: number, resolvedDays: number | null) => {
      const at = (days: number) => new Date(NOW.getTime() - days * DAY_MS);
      await pool().query(
        `INSERT INTO notices (id, user_id, kind, subject, source, message, opened_at, resolved_at) VALUES ($1, $2, 'source_silent', $1, '#x', 'quiet', $3, $4)`,
        [id, userId, at(openedDays), resolvedDays === null ? null : at(resolvedDays)],
      );
      await pool().query(
        `INSERT INTO notice_deliveries (id, user_id, notice_id, state, channel_id, message_id, status) VALUES ($1, $2, $3, 'open', $4, $3 || ':open', 'delivered')`,
        [`dlv_${id}`, userId, id, channel],
      );
    };
    await notice(starter, 'ntc_old', 100, 95);
    await notice(starter, 'ntc_recent', 100, 30);
    await notice(starter, 'ntc_open', 400, null);
    await notice(business, 'ntc_business', 200, 190);

    const summary = await sweep();

    expect(summary).toMatchObject({ notices: 1 });
    const { rows } = await pool().query<{ id: string }>('SELECT id FROM notices ORDER BY id');
    expect(rows.map((row) => row.id)).toEqual(['ntc_business', 'ntc_open', 'ntc_recent']);
    const { rows: sends } = await pool().query<{ notice_id: string }>('SELECT notice_id FROM notice_deliveries ORDER BY notice_id');
    expect(sends.map((row) => row.notice_id)).toEqual(['ntc_business', 'ntc_open', 'ntc_recent']);
  });

  it('deletes in batches of the given size and stops at its budget, the next run taking the rest', async () => {
    const user = await account('starter');
    await seedItems(pool(), NOW, user, '55', 250, 100);
    const first = await sweep({ batchSize: 40, maxRows: 200 });
    // Each batch deletes 40 items and their 40 posts: the run stops after the batch that reaches 200 rows.
    expect(first).toMatchObject({ items: 120, posts: 120, batches: 3, budgetSpent: true });
    const rest = await sweep({ batchSize: 40 });
    expect(rest).toMatchObject({ items: 130, posts: 130, budgetSpent: false });
    // 130 = 3 full batches and one of 10 that ends the account; then one empty orphan batch and one empty notices batch.
    expect(rest.batches).toBe(6);
    expect(await countRows(pool(), user)).toMatchObject({ items: 0, sources: 0, posts: 0 });
  });

  it('ends after the batch in hand when the process stops, the next run taking the rest', async () => {
    const user = await account('starter');
    await seedItems(pool(), NOW, user, '56', 100, 100);
    const stopping = new AbortController();
    stopping.abort();
    const stopped = await sweepRetention(pool(), { now: () => NOW, limits: { pauseMs: 0, batchSize: 40 }, signal: stopping.signal });
    expect(stopped).toMatchObject({ items: 0, posts: 0, batches: 0, pendingAccounts: 0 });
    expect(await countRows(pool(), user)).toMatchObject({ items: 100 });
    expect(await sweep({ batchSize: 40 })).toMatchObject({ items: 100 });
  });

  it('shares the work between sweeps running at once: everything deleted exactly once, without errors', async () => {
    const users = [await account('starter'), await account('pro'), await account('business')];
    // The same posts in every account's feed: the sweeps race for the posts as well as for the items.
    for (const user of users) await seedItems(pool(), NOW, user, '66', 1_500, 100);
    await seedItem(pool(), NOW, { userId: users[0] as string, postId: '6699999', ageDays: 10 });

    const sweeps = await Promise.all([1, 2, 3].map(() => sweep({ batchSize: 100, pauseMs: 1 })));

    expect(sweeps.reduce((sum, run) => sum + run.items, 0)).toBe(4_500);
    expect(sweeps.reduce((sum, run) => sum + run.posts, 0)).toBe(1_500);
    expect(sweeps.reduce((sum, run) => sum + run.itemSources, 0)).toBe(9_000);
    expect(sweeps.map((run) => run.contended)).toEqual([0, 0, 0]);
    expect(await countRows(pool())).toMatchObject({ items: 1, sources: 1, posts: 1 });
  });

  it("finds an account's expired items on its feed index, and a deleted item's deliveries on theirs", async () => {
    const user = await account('starter');
    const other = await account('business');
    await seedItems(pool(), NOW, user, '77', 2_000, 100);
    await seedItems(pool(), NOW, other, '78', 30_000, 1);
    const channel = await seedChannel(pool(), other);
    await pool().query(
      `INSERT INTO deliveries (id, user_id, channel_id, feed_item_id, message_id, status)
       SELECT 'dlv_' || id, user_id, $2, id, 'msg_' || id, 'delivered' FROM feed_items WHERE user_id = $1`,
      [other, channel],
    );
    await pool().query('ANALYZE feed_items; ANALYZE deliveries; ANALYZE x_posts');
    const plan = async (sql: string, values: unknown[]) =>
      (await pool().query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values)).rows.map((row) => row['QUERY PLAN']).join('\n');
    const items = await plan(DELETE_EXPIRED_ITEMS, [user, new Date(NOW.getTime() - 90 * DAY_MS), 1000]);
    expect(items).toMatch(/Index (Only )?Scan( Backward)? using feed_items_user_id_detected_at_id_idx on feed_items f\b/);
    expect(items).toMatch(/Tid Scan on feed_items|Index Scan using feed_items_pkey/);
    // The lookup the foreign key's cascade makes for each deleted item, and the pending-delivery check's.
    expect(await plan('SELECT 1 FROM deliveries WHERE feed_item_id = $1', ['post_x'])).toMatch(/deliveries_feed_item_id_idx/);
    expect(await plan(PICK_ORPHAN_POSTS, [new Date(NOW.getTime() - 50 * DAY_MS), NOW, 1000])).toMatch(/x_posts_first_seen_at_idx/);
  });
});

import { waitFor } from '@hashwatch/testing';
import { runAdmin } from './harness/admin-cli';
import { Suite } from './harness/suite';
import { postBurst, watchTags } from './harness/watch-tags';

/**
 * Retention under the running apps: the built scanner's scheduled sweep deletes the account's items past its
 * plan's retention, with their deliveries and posts, while the feed keeps the rest; `plan:set --retention-days`
 * refuses a retention under 31 days and changes nothing.
 */
describe('retention', () => {
  let suite: Suite | undefined;
  let receiverClose: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await receiverClose?.();
    await suite?.stop();
  });

  it("deletes the items past the plan's retention with their deliveries and posts, and keeps the rest", async () => {
    // The sweep every 2 s instead of 10 minutes, so the scenario sees it run.
    suite = await Suite.start({ env: { RETENTION_SWEEP_SECONDS: '2' } });
    const running = suite;
    await expect(runAdmin(running.database.url, ['plan:set', '--plan', 'business', '--retention-days', '7'])).rejects.toThrow('--retention-days must be at least 31');
    expect(await runAdmin(running.database.url, ['plan:set', '--plan', 'business', '--retention-days', '31'])).toMatchObject({ plan: { id: 'business', retention_days: 31 } });

    const [channel] = await watchTags(running, ['e2eret'], [{ name: 'every-source', hashtags: [] }]);
    receiverClose = () => channel!.receiver.close();
    const posts = await postBurst(running, 4, ['e2eret']);
    await waitFor(async () => (await running.feedItems()).length === posts.length, 30_000, 'the posts stored');
    await waitFor(async () => (await running.gateway.deliveries()).filter((delivery) => delivery.status === 'delivered').length === posts.length, 30_000, 'the alerts delivered');

    // Two items as if detected 32 days ago: past the plan's 31 days.
    const items = await running.feedItems();
    const aged = items.slice(0, 2);
    await running.pool.query(`UPDATE feed_items SET detected_at = detected_at - interval '32 days' WHERE id = ANY($1::text[])`, [aged.map((item) => item.id)]);

    await waitFor(async () => (await running.feedItems()).length === 2, 30_000, 'the sweep to delete the expired items', 250);
    const feed = (await running.gateway.call('GET', '/posts?limit=20')) as { data: { id: string }[] };
    expect(feed.data.map((item) => item.id).sort()).toEqual(items.slice(2).map((item) => item.id).sort());
    const { rows } = await running.pool.query<{ deliveries: number; posts: number; sources: number }>(
      `SELECT (SELECT count(*) FROM deliveries WHERE feed_item_id = ANY($1::text[]))::int AS deliveries,
              (SELECT count(*) FROM x_posts WHERE id = ANY($2::text[]))::int AS posts,
              (SELECT count(*) FROM feed_item_sources WHERE item_id = ANY($1::text[]))::int AS sources`,
      [aged.map((item) => item.id), aged.map((item) => item.x_post_id)],
    );
    expect(rows[0]).toEqual({ deliveries: 0, posts: 0, sources: 0 });
    expect((await running.gateway.deliveries()).length).toBe(2);
  });
});

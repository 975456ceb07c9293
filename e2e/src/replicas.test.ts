import { type AppProcess, waitFor } from '@hashwatch/testing';
import { deliveryViolations, waitForDeliveries, type WatchedChannel } from './harness/delivery-check';
import { reportScenario } from './harness/scenario-report';
import { Suite } from './harness/suite';
import { postBurst, watchTags } from './harness/watch-tags';

const BURST = 150;
const BURST_MS = 10_000;
const LIKED_POSTS = 10;
const LIKERS = ['e2efan1', 'e2efan2', 'e2efan3'];
const EXIT_LIMIT_MS = 10_000;

/** SIGTERM, then the time the process took to exit and how it exited (SIGKILL after 15 s, which fails the test). */
async function terminate(app: AppProcess): Promise<{ label: string; ms: number; code: number | null; signal: string | null }> {
  const started = Date.now();
  const status = await app.stop(15_000);
  return { label: app.label, ms: Date.now() - started, code: status.code, signal: status.signal };
}

/**
 * (e) Three scanners, two notifiers and two engagement pollers share one stream of posts; one of each is stopped
 * with SIGTERM mid-burst, and every app is stopped with SIGTERM at the end. Each post is searched once per tick
 * (not once per replica), stored once and delivered once per channel; each new liker becomes one engagement item
 * and one engagement alert; every SIGTERM drains and exits 0 within 10 s.
 */
describe('replicas on one stream, and SIGTERM', () => {
  let suite: Suite | undefined;
  let channels: WatchedChannel[] = [];

  afterAll(async () => {
    await Promise.allSettled(channels.map((channel) => channel.receiver.close()));
    await suite?.stop();
  });

  it('stores, refreshes and delivers everything once, and every replica stopped by SIGTERM exits 0 within 10 s', async () => {
    suite = await Suite.start({ replicas: { scanner: 3, notifier: 2, 'engagement-poller': 2 } });
    const running = suite;
    channels = await watchTags(
      running,
      ['e2erep', 'e2erepb'],
      [
        { name: 'every-source', hashtags: [] },
        { name: 'engaged-tag', hashtags: ['e2erep'], engagementAlerts: true },
      ],
      { engagementTags: ['e2erep'] },
    );
    const accepted = () => channels.reduce((sum, channel) => sum + channel.receiver.accepted().length, 0);

    const searchesBefore = (await running.xsim.requests('search_recent')).length;
    const burstStarted = Date.now();
    const burst = postBurst(running, BURST, ['e2erep', 'e2erepb'], BURST_MS);
    await waitFor(() => accepted() >= 30, 60_000, '30 deliveries before the first SIGTERMs', 20);
    const midBurst = await Promise.all(
      (['scanner', 'notifier', 'engagement-poller'] as const).map((app) => terminate(running.running(app)[0]!)),
    );
    const sigtermsDone = Date.now();
    const posts = await burst;
    const searchesDuringBurst = (await running.xsim.requests('search_recent')).length - searchesBefore;
    const burstSeconds = (Date.now() - burstStarted) / 1000;

    // New accounts like the first posts of the engagement-tracked tag: one engagement item and alert per liker.
    const liked = posts.filter((post) => post.tags.includes('e2erep')).slice(0, LIKED_POSTS);
    for (const post of liked) await running.xsim.like(post.xPostId, LIKERS);
    const expectedEngagement = LIKED_POSTS * LIKERS.length;
    await waitFor(
      async () => (await running.feedItems()).filter((item) => item.type === 'engagement').length >= expectedEngagement,
      60_000,
      `${expectedEngagement} engagement items`,
      250,
    );

    const check = await waitForDeliveries(running, posts, channels, 90_000);
    const atEnd = await Promise.all(running.apps.filter((app) => app.isRunning() && app.app !== 'x-sim').map(terminate));
    reportScenario('replicas-3-scanners-2-notifiers-2-pollers', check, sigtermsDone, {
      engagement_items: check.engagementItems,
      searches_per_second: Number((searchesDuringBurst / burstSeconds).toFixed(2)),
      sigterm_exit_ms: Object.fromEntries([...midBurst, ...atEnd].map((exit) => [exit.label, exit.ms])),
    });

    expect(deliveryViolations(check, { allowSameIdRedelivery: false })).toEqual([]);
    expect(check.engagementItems).toBe(expectedEngagement);
    // One search per tick serves both tags, whatever the number of scanner replicas (three would make it 3 a second).
    expect(searchesDuringBurst / burstSeconds).toBeLessThan(1.5);
    for (const exit of [...midBurst, ...atEnd]) {
      expect(exit).toEqual({ label: exit.label, ms: expect.any(Number), code: 0, signal: null });
      expect(exit.ms).toBeLessThan(EXIT_LIMIT_MS);
    }
  });
});

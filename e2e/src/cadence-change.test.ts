import { waitFor } from '@hashwatch/testing';
import { runAdmin } from './harness/admin-cli';
import { Suite } from './harness/suite';
import { postBurst, watchTags } from './harness/watch-tags';
import type { XSimClient } from './harness/x-sim-client';

const SLOW = { scan: 4, engagement: 6 };
const FAST = { scan: 1, engagement: 2 };
const GAPS_MEASURED = 5;
const SCAN_GAPS_MEASURED = 10;
// How long a change may take to reach the workers: the outbox relay's tick (1 s), a scheduler's upsert, a loaded machine.
const TRAVEL_MS = 3_000;

/** Arrival times (epoch ms) of the served requests to one X endpoint after `since`. */
async function servedAfter(xsim: XSimClient, endpoint: string, since: number): Promise<number[]> {
  return (await xsim.requests(endpoint)).filter((request) => request.status === 200).map((request) => Date.parse(request.at)).filter((at) => at > since);
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((at, i) => at - times[i]!);
}

/**
 * (f) Under running workers, `plan:set` makes the business plan's cadences faster and the account takes a fresh
 * snapshot (`POST /me/resync-limits`). Scans and engagement refreshes must follow within one period of the new
 * cadence, and keep it: the gaps between X calls stay within 10 % of it.
 */
describe('a cadence change under running workers', () => {
  let suite: Suite | undefined;
  let receiverClose: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await receiverClose?.();
    await suite?.stop();
  });

  it('takes effect within one new period for scans and engagement refreshes, which then keep it within 10 % on average, no tick skipped or doubled', async () => {
    suite = await Suite.start({ scanIntervalSeconds: SLOW.scan, engagementIntervalSeconds: SLOW.engagement });
    const running = suite;
    const [channel] = await watchTags(running, ['e2ecad'], [{ name: 'every-source', hashtags: [] }], { engagementTags: ['e2ecad'] });
    receiverClose = () => channel!.receiver.close();
    const posts = await postBurst(running, 3, ['e2ecad']);
    await waitFor(async () => (await running.feedItems()).length >= posts.length, 30_000, 'the posts stored');
    // The slow cadence is in force: two refreshes about 6 s apart.
    const stored = Date.now();
    await waitFor(async () => (await servedAfter(running.xsim, 'posts_lookup', stored)).length >= 2, 30_000, 'two refreshes at the slow cadence', 250);

    await runAdmin(running.database.url, ['plan:set', '--plan', 'business', '--scan-interval', String(FAST.scan), '--engagement-interval', String(FAST.engagement)]);
    const changedAt = Date.now();
    const me = await running.gateway.resyncLimits();
    expect(me).toMatchObject({ scan_interval_seconds: FAST.scan, engagement_refresh_seconds: FAST.engagement });

    // The new cadence is in force within one new period plus the change's travel (the outbox relay ticks every
    // second): from then on, one call per period. A change that waited for the old cadence shows fewer calls.
    const refreshDeadline = changedAt + TRAVEL_MS + FAST.engagement * 1000 * (GAPS_MEASURED + 1);
    const scanDeadline = changedAt + TRAVEL_MS + FAST.scan * 1000 * (SCAN_GAPS_MEASURED + 1);
    await waitFor(() => Date.now() > Math.max(refreshDeadline, scanDeadline) + 500, 60_000, 'the measuring windows', 250);
    const refreshes = (await servedAfter(running.xsim, 'posts_lookup', changedAt)).filter((at) => at <= refreshDeadline);
    const scans = (await servedAfter(running.xsim, 'search_recent', changedAt)).filter((at) => at <= scanDeadline);
    // The last gaps of each window are the cadence itself.
    const refreshGaps = gaps(refreshes).slice(-GAPS_MEASURED);
    const scanGaps = gaps(scans).slice(-SCAN_GAPS_MEASURED);
    const meanScanGap = scanGaps.reduce((sum, gap) => sum + gap, 0) / SCAN_GAPS_MEASURED;
    process.stdout.write(
      `${JSON.stringify({
        e2e: 'cadence-change',
        refreshes_in_window: refreshes.length,
        refresh_window_ms: refreshDeadline - changedAt,
        refresh_gaps_ms: refreshGaps,
        scans_in_window: scans.length,
        scan_window_ms: scanDeadline - changedAt,
        scan_gap_max_ms: Math.max(...scanGaps),
        scan_gap_min_ms: Math.min(...scanGaps),
        scan_gap_mean_ms: Math.round(meanScanGap),
      })}\n`,
    );

    expect(refreshes.length).toBeGreaterThanOrEqual(GAPS_MEASURED + 1);
    expect(scans.length).toBeGreaterThanOrEqual(SCAN_GAPS_MEASURED + 1);
    // Each tick is due on a fixed schedule, but a call reaches X when a worker has picked the tick up, which a
    // loaded 2-core machine may delay by a few hundred ms (measured: 229 ms under a parallel build), and the next
    // one is on time again. So the cadence is kept on average within 10 %, and no gap is a skipped or doubled tick
    // (off by more than a quarter): what a change that waited for the old cadence, or ran both, would show.
    const within = (gap: number, seconds: number) => Math.abs(gap - seconds * 1000) <= seconds * 100;
    const meanRefreshGap = refreshGaps.reduce((sum, gap) => sum + gap, 0) / refreshGaps.length;
    expect(within(meanRefreshGap, FAST.engagement)).toBe(true);
    expect(refreshGaps.filter((gap) => Math.abs(gap - FAST.engagement * 1000) > FAST.engagement * 250)).toEqual([]);
    expect(within(meanScanGap, FAST.scan)).toBe(true);
    expect(scanGaps.filter((gap) => Math.abs(gap - FAST.scan * 1000) > FAST.scan * 250)).toEqual([]);
  });
});

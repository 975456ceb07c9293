import { waitFor } from '@hashwatch/testing';
import { deliveryViolations, waitForDeliveries, type WatchedChannel } from './harness/delivery-check';
import { reportScenario } from './harness/scenario-report';
import { Suite } from './harness/suite';
import { postBurst, watchTags } from './harness/watch-tags';

// The 429's reset, 3 s away, while the window's 200s said 15 minutes (x-sim's window is X's 900 s).
const RESET_IN_SECONDS = 3;
const RESUME_LIMIT_MS = 5_000;
const RECOVERY_LIMIT_MS = 10_000;

/**
 * (c) X's search answers 503 three times, then 429 with a reset 3 s away while the window resets in 15 minutes.
 * The scanner must call again at that 429's own reset (X's answer is the authority), not at the remembered
 * window's, and every post published meanwhile is stored once and delivered.
 */
describe('X search unavailable, then rate-limited with its own early reset', () => {
  let suite: Suite | undefined;
  let channels: WatchedChannel[] = [];

  afterAll(async () => {
    await Promise.allSettled(channels.map((channel) => channel.receiver.close()));
    await suite?.stop();
  });

  it("searches again at the 429's reset and stores and delivers every post published during the outage once", async () => {
    suite = await Suite.start();
    const running = suite;
    channels = await watchTags(running, ['e2exout'], [{ name: 'every-source', hashtags: [] }]);
    await running.xsim.addFault({ endpoint: 'search_recent', kind: 'unavailable', count: 3 });
    await running.xsim.addFault({ endpoint: 'search_recent', kind: 'rate_limited', count: 1, reset_in_seconds: RESET_IN_SECONDS });
    const posts = await postBurst(running, 20, ['e2exout']);

    await waitFor(async () => (await running.xsim.requests('search_recent')).some((request) => request.status === 429), 30_000, 'the 429');
    const log = await running.xsim.requests('search_recent');
    const limitedAt = Date.parse(log.find((request) => request.status === 429)!.at);
    // x-sim writes the 429's x-rate-limit-reset as the arrival's second, rounded up, plus reset_in_seconds.
    const resetAt = Math.ceil(limitedAt / 1000) * 1000 + RESET_IN_SECONDS * 1000;

    const check = await waitForDeliveries(running, posts, channels, 60_000);
    const searches = await running.xsim.requests('search_recent');
    const firstServed = searches.find((request) => request.status === 200 && Date.parse(request.at) > limitedAt);
    const resumeMs = firstServed ? Date.parse(firstServed.at) - resetAt : Number.POSITIVE_INFINITY;
    const { recovery_ms } = reportScenario('x-503x3-then-429-reset-3s', check, resetAt, {
      search_resume_after_reset_ms: resumeMs,
      searches_before_reset: searches.filter((request) => Date.parse(request.at) > limitedAt && Date.parse(request.at) < resetAt).length,
      unavailable_answers: searches.filter((request) => request.status === 503).length,
    });

    expect(deliveryViolations(check, { allowSameIdRedelivery: false })).toEqual([]);
    expect(searches.filter((request) => request.status === 503)).toHaveLength(3);
    // Nothing is spent on a search X already refused until its reset; the next comes soon after it.
    expect(searches.filter((request) => Date.parse(request.at) > limitedAt && Date.parse(request.at) < resetAt - 1_000)).toEqual([]);
    expect(resumeMs).toBeLessThan(RESUME_LIMIT_MS);
    expect(recovery_ms).toBeLessThan(RECOVERY_LIMIT_MS);
  });
});

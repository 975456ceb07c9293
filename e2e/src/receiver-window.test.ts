import type { Received } from '@hashwatch/testing';
import { deliveryViolations, waitForDeliveries, type WatchedChannel } from './harness/delivery-check';
import { reportScenario } from './harness/scenario-report';
import { Suite } from './harness/suite';
import { postBurst, watchTags } from './harness/watch-tags';

const POSTS = 60;
// The throttled receiver's one 429 and the seconds it asks for.
const THROTTLED_AT = 5;
const RETRY_AFTER_S = 2;
// The slowing receiver answers its first requests at once, then each after SLOW_MS.
const QUICK_REQUESTS = 12;
const SLOW_MS = 400;
// The fast receiver answers every request in this long (a receiver answering at once never holds two).
const FAST_MS = 20;
// The failing receiver answers 500 this long after its first request.
const FAILING_MS = 3_000;
// The capped receiver's own max_per_second.
const CEILING = 20;

const peakInFlight = (requests: Received[]) => Math.max(0, ...requests.map((request) => request.inFlight));

/**
 * json receivers served as fast as they answer: five receivers of one account, each answering in its own way,
 * drained by two notifier replicas that share each receiver's window through Redis. Every item reaches every
 * receiver once, under one webhook-id; a quick receiver is sent several at once, a 429's Retry-After holds every
 * replica back, a receiver that slows down is sent fewer at once, a failing one is not flooded, and a receiver's own
 * max_per_second holds.
 */
describe('json receivers paced by their own answers', () => {
  let suite: Suite | undefined;
  let channels: WatchedChannel[] = [];

  afterAll(async () => {
    await Promise.allSettled(channels.map((channel) => channel.receiver.close()));
    await suite?.stop();
  });

  it('sends each receiver as much at once as its answers allow, and each item once', async () => {
    // The account's sends in flight per replica (10 by default) are not what is measured here.
    suite = await Suite.start({ replicas: { notifier: 2, 'engagement-poller': 0 }, env: { NOTIFIER_MAX_SENDS_PER_ACCOUNT: '50' } });
    const running = suite;
    channels = await watchTags(running, ['e2ewindow'], [
      { name: 'fast', hashtags: [] },
      { name: 'throttled', hashtags: [] },
      { name: 'slowing', hashtags: [] },
      { name: 'failing', hashtags: [] },
      { name: 'capped', hashtags: [], maxPerSecond: CEILING },
    ]);
    const [fast, throttled, slowing, failing, capped] = channels as [WatchedChannel, WatchedChannel, WatchedChannel, WatchedChannel, WatchedChannel];
    fast.receiver.behave(() => ({ status: 204, delayMs: FAST_MS }));
    throttled.receiver.behave((_request, index) =>
      index === THROTTLED_AT ? { status: 429, headers: { 'retry-after': String(RETRY_AFTER_S), 'content-type': 'application/json' }, body: '{"error":"slow down"}' } : { status: 204 });
    slowing.receiver.behave((_request, index) => ({ status: 204, delayMs: index < QUICK_REQUESTS ? 0 : SLOW_MS }));
    let failingFrom = 0;
    failing.receiver.behave((request) => {
      failingFrom ||= request.at;
      return request.at - failingFrom < FAILING_MS ? { status: 500, body: 'down' } : { status: 204 };
    });

    const posts = await postBurst(running, POSTS, ['e2ewindow']);
    const check = await waitForDeliveries(running, posts, channels, 90_000);
    reportScenario('json-receiver-windows', check, Date.now(), {
      fast_peak_in_flight: peakInFlight(fast.receiver.requests),
      slowing_peak_in_flight_slow: peakInFlight(slowing.receiver.requests.slice(QUICK_REQUESTS)),
      slowing_peak_in_flight_last: peakInFlight(slowing.receiver.requests.slice(-8)),
      failing_500s: failing.receiver.requests.filter((request) => request.status === 500).length,
    });
    // Nothing lost, nothing accepted twice, one webhook-id per item, across both replicas.
    expect(deliveryViolations(check, { allowSameIdRedelivery: false })).toEqual([]);

    // Quick 2xx answers grow the window: several sends in flight at once, the whole burst within seconds
    // (the fixed pace of 10 a second this replaced took 6 s for it).
    const fastArrivals = fast.receiver.accepted().map((request) => request.at);
    expect(peakInFlight(fast.receiver.requests)).toBeGreaterThanOrEqual(3);
    expect(Math.max(...fastArrivals) - Math.min(...fastArrivals)).toBeLessThan(4_000);

    // The 429's Retry-After holds every replica back: nothing reaches the receiver from shortly after the 429
    // until its 2 s are over (requests already on their way may still land in the first moments).
    const refused = throttled.receiver.requests[THROTTLED_AT]!;
    expect(refused.status).toBe(429);
    const during = throttled.receiver.requests.filter((request) => request.at > refused.answeredAt + 300 && request.at < refused.answeredAt + RETRY_AFTER_S * 1_000 - 50);
    expect(during).toEqual([]);

    // Slow answers shrink the window: many in flight while it was quick, at most half as many at the end (one a round
    // trip of 400 ms on a quiet machine, a few more where a loaded one makes its quick answers slower too).
    const slowRequests = slowing.receiver.requests.slice(QUICK_REQUESTS);
    const earlyPeak = peakInFlight(slowRequests.slice(0, 10));
    expect(earlyPeak).toBeGreaterThanOrEqual(4);
    expect(peakInFlight(slowing.receiver.requests.slice(-8))).toBeLessThanOrEqual(Math.max(2, Math.floor(earlyPeak / 2)));

    // A failing receiver is rested and backed off, not sent the whole burst, and takes everything once it is back.
    const fails = failing.receiver.requests.filter((request) => request.status === 500).length;
    expect(fails).toBeGreaterThan(0);
    expect(fails).toBeLessThan(POSTS / 2);

    // The receiver's own ceiling: never more than 20 in any second (a little slack for arrival jitter).
    const cappedArrivals = capped.receiver.requests.map((request) => request.at).sort((a, b) => a - b);
    for (let i = CEILING; i < cappedArrivals.length; i += 1) expect(cappedArrivals[i]! - cappedArrivals[i - CEILING]!).toBeGreaterThanOrEqual(900);
  }, 180_000);
});

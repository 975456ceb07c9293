import { waitFor } from '@hashwatch/testing';
import { deliveryViolations, waitForDeliveries, type WatchedChannel } from './harness/delivery-check';
import { reportScenario } from './harness/scenario-report';
import { Suite } from './harness/suite';
import { postBurst, watchTags } from './harness/watch-tags';

const RESUME_LIMIT_MS = 10_000;

/**
 * (a) The notifier is SIGKILLed twice while a burst of 200 alerts goes out to two json channels; a new notifier
 * is started each time. Nothing may be lost; a same-id redelivery of a send the kill interrupted is allowed.
 */
describe('SIGKILL of the notifier during a burst', () => {
  let suite: Suite | undefined;
  let channels: WatchedChannel[] = [];

  afterAll(async () => {
    await Promise.allSettled(channels.map((channel) => channel.receiver.close()));
    await suite?.stop();
  });

  it('loses no alert, stores each once and keeps one webhook-id per item', async () => {
    suite = await Suite.start();
    const running = suite;
    channels = await watchTags(running, ['e2ealpha', 'e2ebeta'], [
      { name: 'every-source', hashtags: [] },
      { name: 'alpha-only', hashtags: ['e2ealpha'] },
    ]);
    const accepted = () => channels.reduce((sum, channel) => sum + channel.receiver.accepted().length, 0);

    const burst = postBurst(running, 200, ['e2ealpha', 'e2ebeta'], 6_000);
    let faultEnd = 0;
    const kills: number[] = [];
    for (let round = 0; round < 2; round += 1) {
      const floor = accepted() + 15;
      await waitFor(() => accepted() >= floor, 60_000, `15 more deliveries before kill ${round + 1}`, 20);
      for (const notifier of running.running('notifier')) notifier.signal('SIGKILL');
      kills.push(accepted());
      await running.startWorker('notifier');
      faultEnd = Date.now();
    }
    const posts = await burst;

    const check = await waitForDeliveries(running, posts, channels, 90_000);
    const { resume_ms, late_after_fault } = reportScenario('notifier-sigkill-x2', check, faultEnd, { delivered_at_kills: kills });
    expect(deliveryViolations(check, { allowSameIdRedelivery: true })).toEqual([]);
    // Delivery resumes within 10 s of the new notifier's start (the killed one's leases and jobs lapse first); the
    // backlog then drains as fast as each receiver answers (its adaptive window).
    expect(late_after_fault).toBeGreaterThan(0);
    expect(resume_ms).toBeLessThan(RESUME_LIMIT_MS);
  });
});

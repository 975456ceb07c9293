import { UnrecoverableError } from 'bullmq';
import type { Browser } from 'playwright-core';
import { createLogger } from '@hashwatch/logger';
import { createQueues, createRedisConnection, defineWorker, type DefinedWorker, type Queues } from '@hashwatch/queues';
import { redisTargetFromEnv, waitFor } from '@hashwatch/testing';
import { launchChromium } from './harness/chromium';
import { deliveryViolations, waitForDeliveries, type WatchedChannel } from './harness/delivery-check';
import { Suite } from './harness/suite';
import { postBurst, watchTags } from './harness/watch-tags';

const OPERATOR = { username: 'ops', password: 'e2e console password' };

/**
 * The operator's way out of a failed job, as an operator takes it: the built gateway with ADMIN_USER and
 * ADMIN_PASSWORD, Bull Board in Chromium. A post's routing job fails for good while no notifier runs (a worker of
 * the test's own takes it and refuses it); nothing retries such a job by itself. The operator opens the queue's
 * failed jobs, presses Retry, a notifier starts, and the alert reaches the channel once.
 */
describe('the queue console in Chromium against the built apps', () => {
  let suite: Suite | undefined;
  let browser: Browser | undefined;
  let channels: WatchedChannel[] = [];
  let queues: Queues | undefined;
  let breaker: DefinedWorker<'alert-routing'> | undefined;
  const connections = new Set<{ disconnect(): void }>();

  afterAll(async () => {
    await breaker?.close();
    await queues?.close();
    for (const connection of connections) connection.disconnect();
    await browser?.close();
    await Promise.allSettled(channels.map((channel) => channel.receiver.close()));
    await suite?.stop();
  });

  it('shows the failed routing job, retries it on a click, and the alert then arrives once', async () => {
    suite = await Suite.start({ replicas: { notifier: 0 }, gatewayEnv: () => ({ ADMIN_USER: OPERATOR.username, ADMIN_PASSWORD: OPERATOR.password }) });
    const running = suite;
    channels = await watchTags(running, ['e2econsole'], [{ name: 'console', hashtags: [] }]);

    // The Redis the apps run on: the test run's cluster when REDIS_CLUSTER_NODES is set.
    const target = redisTargetFromEnv({ REDIS_URL: running.redisUrl, REDIS_CLUSTER_NODES: running.redisClusterNodes });
    const producer = createRedisConnection(target, { role: 'producer' });
    const workerConnection = createRedisConnection(target, { role: 'worker' });
    connections.add(producer).add(workerConnection);
    queues = createQueues({ connection: producer, prefix: running.queuePrefix });
    const routing = queues.byName['alert-routing'];
    breaker = defineWorker(
      'alert-routing',
      { 'route-alerts': () => Promise.reject(new UnrecoverableError('routing refused: the channel store is being restored')) },
      { connection: workerConnection, prefix: running.queuePrefix, concurrency: 1, logger: createLogger('e2e', { level: 'error' }) },
    );
    const posts = await postBurst(running, 1, ['e2econsole']);
    await waitFor(async () => (await routing.getJobCounts('failed')).failed === 1, 30_000, 'the routing job to fail');
    await breaker.close();
    breaker = undefined;

    browser = await launchChromium();
    const context = await browser.newContext({ httpCredentials: OPERATOR, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${running.gateway.baseUrl}/admin/queues/queue/alert-routing?status=failed`);
    await page.getByText('routing refused: the channel store is being restored').first().waitFor();
    // The job's own Retry: an icon button whose name shows as a tooltip on hover.
    const retry = page.locator('[data-base-ui-tooltip-trigger] button:has(svg.lucide-refresh-cw)').first();
    await retry.hover();
    await page.getByText('Retry', { exact: true }).waitFor();
    await retry.click();
    await page.getByText('Are you sure that you want to retry this job?').waitFor();
    const answered = page.waitForResponse((response) => response.request().method() === 'PUT' && response.url().endsWith('/retry'));
    await page.getByRole('button', { name: 'Confirm' }).click();
    expect((await answered).status()).toBe(204);
    await waitFor(async () => (await routing.getJobCounts('failed')).failed === 0, 15_000, 'the retried job to leave the failed list');

    await running.startWorker('notifier');
    const check = await waitForDeliveries(running, posts, channels, 60_000);
    expect(deliveryViolations(check, { allowSameIdRedelivery: false })).toEqual([]);
    expect(channels[0]?.receiver.accepted()).toHaveLength(1);
  });
});

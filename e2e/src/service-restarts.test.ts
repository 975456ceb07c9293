import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PrivatePostgres, PrivateRedis, PrivateRedisCluster, waitFor } from '@hashwatch/testing';
import { deliveryViolations, waitForDeliveries, type WatchedChannel } from './harness/delivery-check';
import { reportScenario } from './harness/scenario-report';
import { Suite, type SuiteOptions } from './harness/suite';
import { postBurst, watchTags } from './harness/watch-tags';

const DOWN_MS = 5_000;
const RESUME_LIMIT_MS = 10_000;

/** A server of the run's own that the scenario takes down and brings back, and how the suite reaches it. */
interface Restartable {
  start(): Promise<void>;
  stop(): Promise<void>;
  suiteOptions(): SuiteOptions;
  /** Ends what `stop` leaves running, after the scenario; default `stop`. */
  teardown?(): Promise<void>;
}

/**
 * A Redis Cluster of three masters that require a password, as production clusters do, all apps on it
 * (REDIS_CLUSTER_NODES, REDIS_CLUSTER_PASSWORD): `stop` SIGKILLs the master holding the alert-routing queue's slot,
 * `start` brings it back with its append-only file. While it is gone the cluster refuses every command (its slots
 * are uncovered), so every app rides out a whole-cluster outage.
 */
function clusterMasterRestart(dir: string): Restartable {
  const cluster = new PrivateRedisCluster(dir, `e2e-${randomBytes(9).toString('base64url')}`);
  let killed: number | undefined;
  return {
    async start() {
      if (killed === undefined) return cluster.start();
      await cluster.restart(killed);
      killed = undefined;
    },
    async stop() {
      killed = cluster.masterOf('hw:{alert-routing}:alert-routing:wait');
      await cluster.kill(killed);
    },
    suiteOptions: () => ({ redisClusterNodes: cluster.nodes, env: { REDIS_CLUSTER_PASSWORD: cluster.password ?? '' } }),
    teardown: () => cluster.stop(),
  };
}

const services: { name: string; scenario: string; make: (dir: string) => Restartable }[] = [
  {
    // A crash (SIGKILL), not a clean shutdown: with append-only on, every write Redis acknowledged is in its file.
    name: 'Redis (append-only) killed',
    scenario: 'redis-killed-5s-mid-burst',
    make: (dir) => {
      const redis = new PrivateRedis({ dir });
      return { start: () => redis.start(), stop: () => redis.stop('SIGKILL'), suiteOptions: () => ({ redisUrl: redis.url }) };
    },
  },
  {
    name: 'a Redis Cluster master (the alert-routing slot) killed',
    scenario: 'redis-cluster-master-killed-5s-mid-burst',
    make: clusterMasterRestart,
  },
  {
    // A fast shutdown: every client is disconnected and in-flight transactions roll back.
    name: 'PostgreSQL shut down',
    scenario: 'postgres-down-5s-mid-burst',
    make: (dir) => {
      const postgres = new PrivatePostgres(dir);
      return { start: () => postgres.start(), stop: () => postgres.stop(), suiteOptions: () => ({ postgresServerUrl: postgres.url }) };
    },
  },
];

/**
 * (d) Redis, a master of a Redis Cluster, then PostgreSQL, goes away for 5 s in the middle of a burst of 120 alerts to two json channels, and
 * comes back with its data. Every post is stored once and every item reaches each matching channel under one
 * webhook-id; a send the outage interrupted may be repeated under the same id.
 */
describe.each(services)('$name for 5 s mid-burst', ({ scenario, make }) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-e2e-restart-'));
  const service = make(dir);
  let suite: Suite | undefined;
  let channels: WatchedChannel[] = [];

  afterAll(async () => {
    await Promise.allSettled(channels.map((channel) => channel.receiver.close()));
    // The server must answer for the suite to delete its keys or drop its database; then it goes with its files.
    await suite?.stop();
    await (service.teardown ? service.teardown() : service.stop());
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses no post and no alert, and delivery resumes within 10 s of its return', async () => {
    await service.start();
    suite = await Suite.start(service.suiteOptions());
    const running = suite;
    channels = await watchTags(running, ['e2erestart', 'e2eother'], [
      { name: 'every-source', hashtags: [] },
      { name: 'restart-only', hashtags: ['e2erestart'] },
    ]);
    const accepted = () => channels.reduce((sum, channel) => sum + channel.receiver.accepted().length, 0);

    const burst = postBurst(running, 120, ['e2erestart', 'e2eother'], 8_000);
    await waitFor(() => accepted() >= 20, 60_000, '20 deliveries before the outage', 20);
    const deliveredBefore = accepted();
    await service.stop();
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
    await service.start();
    const faultEnd = Date.now();
    const posts = await burst;

    const check = await waitForDeliveries(running, posts, channels, 90_000);
    const { resume_ms, late_after_fault } = reportScenario(scenario, check, faultEnd, { down_ms: DOWN_MS, delivered_before_outage: deliveredBefore });
    // Every app rode the outage out: none exited (checked first: an app gone explains what follows).
    expect(running.apps.filter((app) => !app.isRunning()).map((app) => `${app.label}: ${app.logTail(5)}`)).toEqual([]);
    expect(deliveryViolations(check, { allowSameIdRedelivery: true })).toEqual([]);
    // The outage held deliveries back (else resume_ms says nothing), and they resumed soon after it.
    expect(late_after_fault).toBeGreaterThan(0);
    expect(resume_ms).toBeLessThan(RESUME_LIMIT_MS);
  });
});

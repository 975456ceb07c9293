import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PrivateRedisCluster, waitFor } from '@hashwatch/testing';
import { deliveryViolations, waitForDeliveries, type ExpectedPost, type WatchedChannel } from './harness/delivery-check';
import { reportScenario } from './harness/scenario-report';
import { Suite } from './harness/suite';
import { watchTags } from './harness/watch-tags';

const TAGS = ['e2ecluster', 'e2eclusterb'];
const POST_EVERY_MS = 200;
const DOWN_MS = 2_000;
// CONTRACT 7: every worker takes jobs again within 10 s of the cluster being ok; a post is then stored within a
// scan interval (1 s) and a tick, so a post published after the restart is stored within this.
const RECOVERY_LIMIT_MS = 12_000;
const SETTLE_MS = 3_000;

/** Posts one post every POST_EVERY_MS until stopped, round-robin over TAGS, remembering when each was published. */
function publishSteadily(suite: Suite): { posts: (ExpectedPost & { at: number })[]; stop: () => Promise<void> } {
  const posts: (ExpectedPost & { at: number })[] = [];
  let stopped = false;
  const loop = (async () => {
    for (let i = 0; !stopped; i += 1) {
      const tag = TAGS[i % TAGS.length]!;
      const started = Date.now();
      const post = await suite.xsim.injectPost({ author: `e2eclauthor${i % 5}`, text: `steady ${i} #${tag}`, lang: 'en' });
      posts.push({ xPostId: post.id, tags: [tag], at: started });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, POST_EVERY_MS - (Date.now() - started))));
    }
  })();
  return {
    posts,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/**
 * A Redis Cluster of three masters (password on, append-only on), two scanners, two notifiers and a poller on it,
 * a post published every 200 ms; each master in turn, the one holding the most keys first, is restarted as a
 * supervisor does (SIGTERM, 2 s down, same port and files). After each restart a post published once the cluster
 * is ok again is stored within RECOVERY_LIMIT_MS, and at the end every post published is stored once and reached
 * each channel under one webhook-id (CONTRACT 7: a master that restarts costs no job and no alert).
 */
describe('each Redis Cluster master restarted in turn', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-e2e-cluster-'));
  const cluster = new PrivateRedisCluster(dir, `e2e-${randomBytes(9).toString('base64url')}`);
  let suite: Suite | undefined;
  let channels: WatchedChannel[] = [];

  afterAll(async () => {
    await Promise.allSettled(channels.map((channel) => channel.receiver.close()));
    await suite?.stop();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every worker recovers by itself and no post or alert is lost', async () => {
    await cluster.start();
    suite = await Suite.start({
      redisClusterNodes: cluster.nodes,
      env: { REDIS_CLUSTER_PASSWORD: cluster.password ?? '' },
      replicas: { scanner: 2, notifier: 2, 'engagement-poller': 1 },
    });
    const running = suite;
    channels = await watchTags(running, TAGS, [
      { name: 'every-source', hashtags: [] },
      { name: 'first-tag-only', hashtags: [TAGS[0]!] },
    ]);
    const stored = async () => new Set((await running.feedItems()).map((item) => item.x_post_id));

    const publishing = publishSteadily(running);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const recoveries: { port: number; ms: number }[] = [];
    let faultEnd = Date.now();
    for (const port of cluster.mastersByKeys()) {
      await cluster.kill(port, 'SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
      await cluster.restart(port);
      faultEnd = Date.now();
      // Every worker is back when a post published now is stored (scanners) and delivered (notifiers).
      await waitFor(() => publishing.posts.some((post) => post.at > faultEnd), 5_000, 'a post published after the restart');
      const probe = publishing.posts.find((post) => post.at > faultEnd)!;
      await waitFor(async () => (await stored()).has(probe.xPostId), RECOVERY_LIMIT_MS + 60_000, `post ${probe.xPostId} stored after master ${port} restarted`, 250).catch(
        () => undefined,
      );
      recoveries.push({ port, ms: Date.now() - faultEnd });
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    }
    await publishing.stop();
    const posts = publishing.posts.map(({ xPostId, tags }) => ({ xPostId, tags }));

    const check = await waitForDeliveries(running, posts, channels, 60_000);
    reportScenario('redis-cluster-each-master-restarted', check, faultEnd, { down_ms: DOWN_MS, recovery_ms: recoveries.map((recovery) => recovery.ms) });
    expect(running.apps.filter((app) => !app.isRunning()).map((app) => `${app.label}: ${app.logTail(5)}`)).toEqual([]);
    expect(deliveryViolations(check, { allowSameIdRedelivery: true })).toEqual([]);
    expect(recoveries.filter((recovery) => recovery.ms > RECOVERY_LIMIT_MS)).toEqual([]);
  });
});

import { createLogger } from '@hashwatch/logger';
import { relayOutbox } from '@hashwatch/outbox';
import { resyncLimits, updatePlan } from '@hashwatch/plans';
import { createRedisConnection, type DefinedWorker, type RedisClient } from '@hashwatch/queues';
import { waitFor } from '@hashwatch/testing';
import { createEngagementPoller } from '../engagement-poller';
import { startPollerWorker } from '../poller-workers';
import { OPEN_ALLOWANCES, usePollerFixture } from '../test-support/poller-fixture';
import { reconcileRefreshSchedulers } from './refresh-schedulers';

// The new cadence, and how far from it a refresh may come: the change takes effect within one period, and the
// gaps between refreshes stay within 10 % of it.
const NEW_SECONDS = 2;
const SLACK_MS = 400;

describe('a faster engagement cadence, with real workers and BullMQ schedulers', () => {
  const f = usePollerFixture();
  const pool = () => f.env.database.db.pool;
  const logger = createLogger('engagement-test', { level: 'error' });
  const connections: RedisClient[] = [];
  const workers: DefinedWorker<'engagement-refreshes'>[] = [];

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.close()));
    for (const connection of connections.splice(0)) connection.disconnect();
    // The plans are shared by every account of this file's database: back to the defaults.
    await updatePlan(f.env.database.db.prisma, 'business', { engagementRefreshSeconds: 60 });
  });

  /** One replica: its own worker connection and poller, on the real clock, relaying after each cycle as main.ts does. */
  function startReplica(): void {
    const connection = createRedisConnection(f.env.redisUrl, { role: 'worker' });
    connections.push(connection);
    const poller = createEngagementPoller({
      pool: pool(),
      x: f.xClient(),
      redis: f.env.redis,
      keyPrefix: f.env.queuePrefix,
      logger,
      now: () => new Date(),
      relay: () => relayOutbox(pool(), f.queues),
      options: { likesSampled: true, allowances: OPEN_ALLOWANCES },
    });
    workers.push(startPollerWorker({ pool: pool(), queues: f.queues, poller, connection, prefix: f.env.queuePrefix, logger }));
  }

  it('refreshes within one new period of plan:set then resync-limits (60 s to 2 s), then every 2 s within 10 %', async () => {
    const user = await f.account({ plan: 'business' });
    const post = f.post('cadence', 'a post #btc');
    await f.detect(user, post);
    const lookups = () =>
      f.sim.state.requestLog
        .entries({ endpoint: 'posts_lookup' })
        .filter((entry) => String(entry.query.ids).split(',').includes(post.id))
        .map((entry) => Date.parse(entry.at));

    startReplica();
    startReplica();
    await reconcileRefreshSchedulers(pool(), f.queues);
    await waitFor(() => lookups().length >= 1, 10_000, 'the first refresh at 60 s');
    // Every scheduler's first tick has run: the post is next due a minute after its first refresh.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = lookups().length;

    // What `npm run admin -- plan:set --plan business --engagement-interval 2` and POST /v1/me/resync-limits do.
    await updatePlan(f.env.database.db.prisma, 'business', { engagementRefreshSeconds: NEW_SECONDS });
    await resyncLimits(f.env.database.db.prisma, user);
    const changedAt = Date.now();
    // The notifier's relay (every second in production) hands the committed outbox rows to BullMQ.
    await relayOutbox(pool(), f.queues);

    await waitFor(() => lookups().length > before, NEW_SECONDS * 1000 + SLACK_MS, 'a refresh at the new cadence');
    const first = lookups()[before] as number;
    expect(first - changedAt).toBeLessThanOrEqual(NEW_SECONDS * 1000 + SLACK_MS);

    const cycles = 11;
    await waitFor(() => lookups().length >= before + cycles + 1, (cycles + 3) * NEW_SECONDS * 1000, `${cycles} more refreshes`);
    const times = lookups().slice(before, before + cycles + 1);
    const gaps = times.slice(1).map((at, i) => at - (times[i] as number));
    // The scheduler's slots are fixed, so a tick a loaded machine runs late is followed by one that comes early: the
    // mean period holds to 5 %, each gap to 30 % (a wrong cadence, 1 s or 60 s, fails both).
    const mean = ((times[cycles] as number) - (times[0] as number)) / cycles;
    expect(Math.abs(mean - NEW_SECONDS * 1000)).toBeLessThanOrEqual(NEW_SECONDS * 50);
    expect(gaps.filter((gap) => gap < NEW_SECONDS * 700 || gap > NEW_SECONDS * 1300)).toEqual([]);
  }, 60_000);
});

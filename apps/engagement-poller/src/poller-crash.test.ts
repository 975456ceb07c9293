import path from 'node:path';
import { useMainProcesses, waitFor, type MainProcess } from '@hashwatch/testing';
import { APP_TOKEN, USER_TOKEN } from '@hashwatch/x-simulator/testing';
import { handles, usePollerFixture } from './test-support/poller-fixture';

// Each test starts real worker processes (tsx compiles src/main.ts at start-up, slowly on a cold cache and a
// loaded 2-core machine): far more than jest's default 30 s may pass before a failure is real.
const PROCESS_TEST_TIMEOUT_MS = 180_000;

/** Sends `signal` to the worker's process group and waits for it to be gone (at once when it already is). */
async function stop(worker: MainProcess, signal: NodeJS.Signals): Promise<void> {
  worker.signal(signal);
  await worker.exit;
}

describe('a poller process killed with SIGKILL in the middle of a cycle', () => {
  const f = usePollerFixture({ rateLimitWindowSeconds: 60 });
  const pool = () => f.env.database.db.pool;
  // The real worker (src/main.ts through tsx, one node process in its own group), killed after the file if a test
  // leaves it running.
  const processes = useMainProcesses(path.join(__dirname, 'main.ts'));
  const startWorker = (): MainProcess =>
    processes.start({
      env: {
        DATABASE_URL: f.env.database.url,
        REDIS_URL: f.env.redisUrl,
        QUEUE_PREFIX: f.env.queuePrefix,
        X_API_BASE_URL: f.simUrl,
        X_BEARER_TOKEN: APP_TOKEN,
        X_USER_TOKEN: USER_TOKEN,
        HEALTH_PORT: '0',
        LOG_LEVEL: 'error',
      },
    });
  // The kill is sent as soon as the held request reaches the simulator (within ~100 ms); holding the answer
  // far longer than that keeps the kill inside the cycle even on a loaded machine, and the test checks that
  // it did (nothing of the held sample committed). afterAll waits for the simulator's timer to end.
  const HOLD_MS = 10_000;
  let heldUntil = 0;

  afterAll(async () => {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, heldUntil - Date.now())));
  }, PROCESS_TEST_TIMEOUT_MS);

  /** Feed item ids carried by the route-alerts jobs left in the outbox. */
  const outboxRows = async () =>
    (await pool().query<{ id: string }>(`SELECT jsonb_array_elements(payload->'items')->>'feedItemId' AS id FROM outbox_jobs`)).rows.map((row) => row.id);

  it('loses no engager and alerts none twice after a restart', async () => {
    const user = await f.account({ refreshSeconds: 1 });
    const post = f.post('zed', 'gm #btc');
    f.sim.state.addLikes(post.id, { usernames: handles('k', 5) });
    f.sim.state.addRetweets(post.id, { usernames: handles('t', 3) });
    const itemId = await f.detect(user, post);
    // The retweet sample's answer is held: by then the same cycle has committed the like sample (its items and
    // their outbox rows) and has not relayed them yet; the retweet sample's transaction is open.
    f.sim.state.injectFault({ endpoint: 'retweeted_by', kind: 'slow', count: 1, delay_ms: HOLD_MS });

    const first = startWorker();
    await waitFor(() => f.sim.state.faults.pending().length === 0, 60_000, 'the held retweeted_by request');
    heldUntil = Date.now() + HOLD_MS + 200;
    await stop(first, 'SIGKILL');
    // Killed between two samples of one cycle: the like sample's items and outbox rows committed, the retweet
    // sample's transaction rolled back, nothing relayed yet.
    const likesBeforeKill = await f.engagementItems(user, itemId);
    expect(likesBeforeKill.map((e) => e.kind)).toEqual(['like', 'like', 'like', 'like', 'like']);
    expect((await outboxRows()).sort()).toEqual(likesBeforeKill.map((e) => e.id).sort());

    // Engagement goes on while the poller is down.
    f.sim.state.addLikes(post.id, { usernames: ['k0006'] });
    f.sim.state.addRetweets(post.id, { usernames: ['t0004'] });

    const second = startWorker();
    await waitFor(async () => (await f.engagementItems(user, itemId)).length >= 10 && (await outboxRows()).length === 0, 60_000, 'every engager stored and relayed');
    // Three more cycles (each looks the post up: its cadence is 1 s): nothing may be added twice.
    const lookups = f.requests('posts_lookup');
    await waitFor(() => f.requests('posts_lookup') >= lookups + 3, 60_000, 'three more cycles');
    await stop(second, 'SIGTERM');

    const items = await f.engagementItems(user, itemId);
    expect(items.map((e) => `${e.kind} ${e.author}`).sort()).toEqual([
      ...handles('k', 6).map((h) => `like @${h}`),
      ...handles('t', 4).map((h) => `retweet @${h}`),
    ]);
    // Each item carried by exactly one job: alerted once.
    const alerted = (await f.alertedItemIds()).filter((id) => items.some((item) => item.id === id));
    expect(alerted).toEqual(items.map((item) => item.id).sort());
    expect(await f.item(itemId)).toMatchObject({ like_count: 6, retweet_count: 4 });
    expect(await second.exit).toBe(0);
  }, PROCESS_TEST_TIMEOUT_MS);

  it('refreshes the counts a killed lookup left behind', async () => {
    const user = await f.account({ refreshSeconds: 1 });
    const post = f.post('yan', 'gm #btc');
    const itemId = await f.detect(user, post);
    f.sim.state.addLikes(post.id, { anonymous: 9 });
    f.sim.state.injectFault({ endpoint: 'posts_lookup', kind: 'slow', count: 1, delay_ms: HOLD_MS });

    const first = startWorker();
    await waitFor(() => f.sim.state.faults.pending().length === 0, 60_000, 'the held posts lookup');
    heldUntil = Date.now() + HOLD_MS + 200;
    await stop(first, 'SIGKILL');
    expect((await f.item(itemId)).like_count).toBe(0);

    const second = startWorker();
    await waitFor(async () => (await f.item(itemId)).like_count === 9, 60_000, 'the counts');
    await stop(second, 'SIGTERM');
  }, PROCESS_TEST_TIMEOUT_MS);
});

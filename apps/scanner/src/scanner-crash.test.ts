import path from 'node:path';
import { useMainProcesses, waitFor, type MainProcess } from '@hashwatch/testing';
import { APP_TOKEN } from '@hashwatch/x-simulator/testing';
import { useScannerFixture } from './test-support/scanner-fixture';

describe('a scanner process killed mid-cycle', () => {
  const fx = useScannerFixture();
  // The real app from source (tsx as a loader), each in its own process group: a SIGKILL reaches the app itself.
  const processes = useMainProcesses(path.join(__dirname, 'main.ts'));

  /** The scanner against this file's database, prefix and simulator. */
  function startScanner(): MainProcess {
    return processes.start({
      env: {
        DATABASE_URL: fx.env.database.url,
        REDIS_URL: fx.env.redisUrl,
        QUEUE_PREFIX: fx.env.queuePrefix,
        X_API_BASE_URL: fx.simUrl,
        X_BEARER_TOKEN: APP_TOKEN,
        HEALTH_PORT: '0',
        LOG_LEVEL: 'info',
      },
    });
  }

  /** The health port its start-up line names. */
  async function healthPort(scanner: MainProcess): Promise<number> {
    return (JSON.parse(await scanner.line('"scanner started"')) as { healthPort: number }).healthPort;
  }

  it('loses no post and stores, counts and alerts each exactly once after a SIGKILL and a restart', async () => {
    const user = await fx.account({ scanIntervalSeconds: 1 });
    await fx.track(user, 'crash');
    const posts = Array.from({ length: 150 }, (_, i) => fx.sim.state.injectPost({ author: `w${i % 4}`, text: `#crash report ${i}` }));
    // The first search is held for 6 s: the process is killed while it waits for X.
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'slow', count: 1, delay_ms: 6_000 });

    const first = startScanner();
    await waitFor(() => fx.sim.state.faults.pending().length === 0, 30_000, 'the first search to reach X');
    first.signal('SIGKILL');
    await first.exit;
    expect(await fx.items(user)).toHaveLength(0);

    const second = startScanner();
    await waitFor(async () => (await fx.items(user)).length >= posts.length, 30_000, 'every post stored after the restart');
    const items = await fx.items(user);
    expect(items.map((item) => item.x_post_id)).toEqual(posts.map((post) => post.id));
    expect(await fx.usage(user)).toMatchObject({ alerts_used: posts.length });
    await waitFor(async () => (await fx.alertedItemIds()).length >= posts.length, 10_000, 'alert jobs');
    expect(await fx.alertedItemIds()).toEqual(items.map((item) => item.id).sort());

    // The restarted process is ready (PostgreSQL and Redis answer) and counts what it stored.
    const port = await healthPort(second);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { postgres: { status: 'ok' }, redis: { status: 'ok' } } });
    expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toMatch(/^hashwatch_feed_items_stored_total\{[^}]*type="hashtag"[^}]*\} 150$/m);

    second.signal('SIGTERM');
    expect(await second.exit).toBe(0);
  }, 90_000);

  it('keeps the pages committed before a SIGKILL between two pages, and stores the rest once after a restart', async () => {
    // The test above left a track that scans every second: its query could take the first fault below (when its
    // tick comes before #midway's), making page 1 of #midway the held one. Only #midway is scanned here.
    await fx.pool().query(`DELETE FROM tracks WHERE hashtag = 'crash'`);
    await fx.pool().query(`DELETE FROM source_cursors WHERE source_key = 'tag:crash'`);
    const user = await fx.account({ scanIntervalSeconds: 1 });
    await fx.track(user, 'midway');
    const posts = Array.from({ length: 250 }, (_, i) => fx.sim.state.injectPost({ author: `m${i % 4}`, text: `#midway report ${i}` }));
    // Page 1 is served at once (a zero-delay fault only marks it); page 2 is held while the process is killed.
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'slow', count: 1, delay_ms: 0 });
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'slow', count: 1, delay_ms: 15_000 });

    const first = startScanner();
    await waitFor(async () => fx.sim.state.faults.pending().length === 0 && (await fx.items(user)).length >= 100, 30_000, 'page 1 stored, page 2 held');
    first.signal('SIGKILL');
    await first.exit;
    expect(await fx.items(user)).toHaveLength(100);
    const { rows } = await fx.pool().query(`SELECT since_id FROM source_cursors WHERE source_key = 'tag:midway'`);
    expect(rows[0]?.since_id).toBeNull();

    const second = startScanner();
    await waitFor(async () => (await fx.items(user)).length >= posts.length, 30_000, 'every post stored after the restart');
    // Another cycle or two of the restarted process must not add anything.
    await waitFor(async () => {
      const { rows: cursor } = await fx.pool().query(`SELECT since_id FROM source_cursors WHERE source_key = 'tag:midway'`);
      return cursor[0]?.since_id === posts.at(-1)?.id;
    }, 10_000, 'the cursor advanced');
    const items = await fx.items(user);
    expect(items.map((item) => item.x_post_id)).toEqual(posts.map((post) => post.id));
    expect(await fx.usage(user)).toMatchObject({ alerts_used: posts.length });
    const expectedItems = items.map((item) => item.id).sort();
    await waitFor(async () => {
      const alerted = new Set(await fx.alertedItemIds());
      return expectedItems.every((id) => alerted.has(id));
    }, 15_000, 'an alert job for every item');
    // Each item carried by exactly one job.
    expect((await fx.alertJobs()).filter((job) => job.userId === user).map((job) => job.feedItemId).sort()).toEqual(expectedItems);

    second.signal('SIGTERM');
    await second.exit;
  }, 90_000);
});

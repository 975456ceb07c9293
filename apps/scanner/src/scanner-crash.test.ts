import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { waitFor } from '@hashwatch/testing';
import { APP_TOKEN } from '@hashwatch/x-simulator/testing';
import { useScannerFixture } from './test-support/scanner-fixture';

const APP_DIR = path.resolve(__dirname, '..');

describe('a scanner process killed mid-cycle', () => {
  const fx = useScannerFixture();
  const children: ChildProcess[] = [];

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  /**
   * The real app from source, against this file's database, prefix and simulator. One node process (tsx as
   * a loader, not the tsx CLI, whose wrapper would survive a SIGKILL sent to it and leave the app running).
   */
  function startScanner(): ChildProcess & { healthPort: Promise<number> } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: APP_DIR,
      env: {
        ...process.env,
        DATABASE_URL: fx.env.database.url,
        REDIS_URL: fx.env.redisUrl,
        QUEUE_PREFIX: fx.env.queuePrefix,
        X_API_BASE_URL: fx.simUrl,
        X_BEARER_TOKEN: APP_TOKEN,
        HEALTH_PORT: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // JSON log lines: the start-up line carries the health port it listens on.
    const healthPort = new Promise<number>((resolve) => {
      let buffered = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          if (!line.includes('"scanner started"')) continue;
          resolve((JSON.parse(line) as { healthPort: number }).healthPort);
        }
      });
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('exit', (code, signal) => {
      if (code !== 0 && signal !== 'SIGKILL' && signal !== 'SIGTERM') process.stderr.write(`scanner exited ${code} ${signal}: ${stderr}\n`);
    });
    children.push(child);
    return Object.assign(child, { healthPort });
  }

  it('loses no post and stores, counts and alerts each exactly once after a SIGKILL and a restart', async () => {
    const user = await fx.account({ scanIntervalSeconds: 1 });
    await fx.track(user, 'crash');
    const posts = Array.from({ length: 150 }, (_, i) => fx.sim.state.injectPost({ author: `w${i % 4}`, text: `#crash report ${i}` }));
    // The first search is held for 6 s: the process is killed while it waits for X.
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'slow', count: 1, delay_ms: 6_000 });

    const first = startScanner();
    await waitFor(() => fx.sim.state.faults.pending().length === 0, 30_000, 'the first search to reach X');
    first.kill('SIGKILL');
    await once(first, 'exit');
    expect(await fx.items(user)).toHaveLength(0);

    const second = startScanner();
    await waitFor(async () => (await fx.items(user)).length >= posts.length, 30_000, 'every post stored after the restart');
    const items = await fx.items(user);
    expect(items.map((item) => item.x_post_id)).toEqual(posts.map((post) => post.id));
    expect(await fx.usage(user)).toMatchObject({ alerts_used: posts.length });
    await waitFor(async () => (await fx.alertedItemIds()).length >= posts.length, 10_000, 'alert jobs');
    expect(await fx.alertedItemIds()).toEqual(items.map((item) => item.id).sort());

    // The restarted process is ready (PostgreSQL and Redis answer) and counts what it stored.
    const port = await second.healthPort;
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { postgres: { status: 'ok' }, redis: { status: 'ok' } } });
    expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toMatch(/^hashwatch_feed_items_stored_total\{[^}]*type="hashtag"[^}]*\} 150$/m);

    second.kill('SIGTERM');
    const [code] = (await once(second, 'exit')) as [number | null];
    expect(code).toBe(0);
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
    first.kill('SIGKILL');
    await once(first, 'exit');
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

    second.kill('SIGTERM');
    await once(second, 'exit');
  }, 90_000);
});

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@hashwatch/sdk';
import { childRegistry, waitFor } from '@hashwatch/testing';
import { Suite } from './harness/suite';
import { postBurst } from './harness/watch-tags';

const REPO_ROOT = path.resolve(__dirname, '../..');
const TAG = 'e2esdk';
const BURST = 30;

interface Consumer {
  child: ChildProcess;
  ids: string[];
  exited: Promise<number | null>;
}

/** examples/feed-to-stdout.ts as its own process (node with tsx, as `npx tsx` runs it), its lines collected. */
function startConsumer(suite: Suite, stateFile: string): Consumer {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/feed-to-stdout.ts'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', HASHWATCH_URL: suite.gateway.baseUrl, HASHWATCH_API_KEY: suite.gateway.apiKey, HASHWATCH_STATE_FILE: stateFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  childRegistry.add(child);
  const consumer: Consumer = { child, ids: [], exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
  let pending = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) consumer.ids.push((JSON.parse(line) as { id: string }).id);
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(`feed-to-stdout: ${chunk}`));
  return consumer;
}

async function stopConsumer(consumer: Consumer): Promise<number | null> {
  consumer.child.kill('SIGTERM');
  return consumer.exited;
}

/**
 * A backend following the feed with the SDK (examples/feed-to-stdout.ts) is stopped while posts keep arriving
 * (x-sim publishes them, the scanner detects them); a new one started from the position the first saved
 * prints what came meanwhile. Together they print every post of the feed exactly once.
 */
describe('a feed consumer stopped and resumed from its saved detected_at', () => {
  let suite: Suite | undefined;
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'hw-e2e-sdk-'));
  afterAll(async () => {
    await suite?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('prints every post exactly once across the two runs', async () => {
    suite = await Suite.start();
    const running = suite;
    const hw = createClient({ baseUrl: running.gateway.baseUrl, apiKey: running.gateway.apiKey });
    await hw.post('/v1/tracks', { body: { hashtag: TAG } });
    const searches = (await running.xsim.requests('search_recent')).length;
    await waitFor(async () => (await running.xsim.requests('search_recent')).length >= searches + 2, 30_000, 'the scanner to search the new track');
    const feedCount = async () => {
      let count = 0;
      for await (const _post of hw.pages('/v1/posts', { query: { limit: 100 } })) count += 1;
      return count;
    };

    const stateFile = path.join(stateDir, 'position.json');
    writeFileSync(stateFile, JSON.stringify({ since: new Date(Date.now() - 60_000).toISOString() }));
    const first = startConsumer(running, stateFile);
    const firstBurst = postBurst(running, BURST, [TAG], 10_000);
    await waitFor(() => first.ids.length >= BURST / 3, 60_000, 'the first consumer to print a third of the first burst');
    expect(await stopConsumer(first)).toBe(0);
    await firstBurst;
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { since: string; since_id: string };

    // Meanwhile: the rest of the first burst and a second one.
    await postBurst(running, BURST, [TAG]);
    await waitFor(async () => (await feedCount()) >= 2 * BURST, 60_000, 'both bursts in the feed');

    const second = startConsumer(running, stateFile);
    await waitFor(() => first.ids.length + second.ids.length >= 2 * BURST, 60_000, 'the second consumer to catch up');
    // Two more polls (2 s apart): a consumer that printed anything twice would show it now.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await stopConsumer(second)).toBe(0);

    const feed: string[] = [];
    for await (const post of hw.pages('/v1/posts', { query: { limit: 100 } })) feed.push(post.id);
    const printed = [...first.ids, ...second.ids];
    process.stdout.write(`${JSON.stringify({ e2e: 'sdk-watch-resume', feed: feed.length, first: first.ids.length, second: second.ids.length, saved })}\n`);
    expect(feed).toHaveLength(2 * BURST);
    expect(second.ids.length).toBeGreaterThanOrEqual(BURST);
    expect([...printed].sort()).toEqual([...feed].sort());
    expect(saved.since_id).toBe(first.ids.at(-1));
  });
});

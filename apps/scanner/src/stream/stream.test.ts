import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@hashwatch/testing';
import { useScannerFixture, type ScannerFixture } from '../test-support/scanner-fixture';
import { snowflakeFloor } from '../snowflake';
import { readCoverage } from './coverage';
import { startStreamHolder, type StreamHolder, type StreamHolderOptions } from './stream-holder';

// Short keep-alives and margins so a disconnection and its back-fill fit in a test; X's own are 20 s and 30 s.
const fx: ScannerFixture = useScannerFixture({ streamKeepAliveMs: 200 });
const TIMING = { marginSeconds: 2, staleSeconds: 2 };
const holders: StreamHolder[] = [];

function holder(overrides: Partial<StreamHolderOptions> = {}): StreamHolder {
  const started = startStreamHolder({
    pool: fx.pool(),
    x: fx.xClient(),
    queues: fx.queues,
    logger: fx.logger,
    limits: { maxRules: 1000, maxLength: 1024 },
    heartbeatMs: 100,
    syncEveryMs: 300,
    lockRetryMs: 100,
    readTimeoutMs: 1_000,
    stableAfterMs: 500,
    timing: TIMING,
    ...overrides,
  });
  holders.push(started);
  return started;
}

afterEach(async () => {
  await Promise.all(holders.splice(0).map((h) => h.stop()));
  await fx.pool().query('UPDATE source_cursors SET streamed_since = NULL');
  await fx.pool().query('DELETE FROM stream_gaps');
  await fx.pool().query('DELETE FROM stream_state');
  fx.sim.state.streamDisconnect();
});

let run = 0;
/** An account tracking two fresh tags, its sources synced by one tick. */
async function watching(): Promise<{ user: string; tags: [string, string] }> {
  run += 1;
  const user = await fx.account();
  const tags: [string, string] = [`strm${run}alpha`, `strm${run}beta`];
  for (const tag of tags) await fx.track(user, tag);
  await fx.scanner().runTick();
  return { user, tags };
}

const streamedCount = async (tags: readonly string[]) => {
  const { rows } = await fx.pool().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM source_cursors WHERE streamed_since IS NOT NULL AND source_key = ANY($1)`,
    [tags.map((tag) => `tag:${tag}`)],
  );
  return rows[0]?.n ?? 0;
};

/** As if each source's last search had started a margin after it joined the stream: from now on the stream alone serves it. */
async function searchedSinceJoining(tags: readonly string[]): Promise<void> {
  await fx.pool().query(
    `UPDATE source_cursors SET streamed_since = scan_started_at - interval '3 seconds' WHERE source_key = ANY($1) AND streamed_since IS NOT NULL`,
    [tags.map((tag) => `tag:${tag}`)],
  );
}

/** One item per post per account, one unit per item, one alert job per item. */
async function expectOnce(user: string, postIds: readonly string[]): Promise<void> {
  const items = await fx.items(user);
  expect(items.map((item) => item.x_post_id).sort()).toEqual([...postIds].sort());
  expect(await fx.usage(user)).toMatchObject({ alerts_used: postIds.length });
  const ids = items.map((item) => item.id).sort();
  await waitFor(async () => (await fx.alertJobs()).filter((job) => job.userId === user).length >= ids.length, 10_000, 'an alert job per item');
  expect((await fx.alertJobs()).filter((job) => job.userId === user).map((job) => job.feedItemId).sort()).toEqual(ids);
}

const post = (author: string, tag: string, text = '') => fx.sim.state.injectPost({ author, text: `#${tag} ${text}` }).id;

describe('the filtered stream', () => {
  it('delivers posts into every feed once, as they are published, and the sources it serves are no longer searched', async () => {
    const { user, tags } = await watching();
    const stream = holder();
    await waitFor(async () => stream.connected() && (await streamedCount(tags)) === 2, 10_000, 'both sources streamed');
    expect(fx.sim.state.streamStatus().connections).toHaveLength(1);

    const ids = [post('writer1', tags[0], 'one'), post('writer2', tags[1], 'two'), post('writer1', tags[0], `and #${tags[1]}`)];
    await waitFor(async () => (await fx.items(user)).length === 3, 10_000, 'three streamed items');
    await expectOnce(user, ids);
    // The post that hit both tags is one item with both sources.
    const both = (await fx.items(user)).find((item) => item.x_post_id === ids[2]);
    expect(both?.sources.sort()).toEqual([`#${tags[0]}`, `#${tags[1]}`]);
    // Scan health follows the stream: the newest post each track matched, and a recent "scanned" (written just after
    // the items' commit, so a loaded machine may read the items first).
    const newest = Math.max(...(await fx.items(user)).map((item) => item.posted_at.getTime()));
    const readHealth = async () => (await fx.pool().query<{ last_post_at: Date | null; last_scanned_at: Date | null }>(
      'SELECT last_post_at, last_scanned_at FROM tracks WHERE user_id = $1',
      [user],
    )).rows;
    await waitFor(async () => (await readHealth()).every((row) => row.last_post_at?.getTime() === newest), 10_000, 'scan health of both tracks');
    const health = await readHealth();
    expect(health.map((row) => row.last_post_at?.getTime())).toEqual([newest, newest]);
    expect(health.every((row) => row.last_scanned_at !== null && Date.now() - row.last_scanned_at.getTime() < 10_000)).toBe(true);

    // Each source had its own search after it joined: from now on a tick leaves them to the stream.
    await searchedSinceJoining(tags);
    await fx.makeDue();
    const before = fx.searchRequests();
    await fx.scanner().runTick();
    expect(fx.searchRequests()).toBe(before);
    expect((await readCoverage(fx.pool())).live).toBe(true);
  });

  it('keeps searching a streamed source until a search that started after it joined has completed', async () => {
    const { tags } = await watching();
    const stream = holder();
    await waitFor(async () => stream.connected() && (await streamedCount(tags)) === 2, 10_000, 'both sources streamed');
    // As if their first search had failed: never completed, so nothing vouches for what came before the stream.
    await fx.pool().query(`UPDATE source_cursors SET last_scan_at = NULL, scan_started_at = NULL WHERE source_key = ANY($1)`, [tags.map((tag) => `tag:${tag}`)]);
    await fx.makeDue();
    const before = fx.searchRequests();
    await fx.scanner().runTick();
    expect(fx.searchRequests()).toBeGreaterThan(before);
  });

  it('back-fills what was published while it was disconnected, once, and nothing twice', async () => {
    const { user, tags } = await watching();
    const stream = holder();
    await waitFor(async () => stream.connected() && (await streamedCount(tags)) === 2, 10_000, 'both sources streamed');
    await searchedSinceJoining(tags);
    const ids = [post('writer1', tags[0], 'before')];
    await waitFor(async () => (await fx.items(user)).length === 1, 10_000, 'the first streamed item');

    // X drops the connection and refuses the next connect with a 503: X's advice is 5 s before trying again.
    fx.sim.state.injectFault({ endpoint: 'stream_connect', kind: 'unavailable', count: 1 });
    fx.sim.state.streamDisconnect();
    await waitFor(() => !stream.connected(), 5_000, 'the disconnection seen');
    ids.push(post('writer2', tags[1], 'during'), post('writer1', tags[0], `during #${tags[1]}`));
    await waitFor(() => stream.connected(), 15_000, 'a new connection');
    ids.push(post('writer2', tags[1], 'after'));
    await waitFor(async () => (await fx.items(user)).length === 2, 10_000, 'the post after the reconnection, streamed');

    // The window is searched once X takes its end_time (10 s after it), by a tick of any replica.
    await waitFor(async () => (await readCoverage(fx.pool())).unfilledGaps === 1, 5_000, 'the gap on record');
    await waitFor(async () => {
      await fx.scanner().runTick();
      return (await readCoverage(fx.pool())).unfilledGaps === 0;
    }, 30_000, 'the gap back-filled');
    await expectOnce(user, ids);
    const backfills = fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).filter((entry) => entry.query.end_time !== undefined);
    expect(backfills.length).toBeGreaterThan(0);
  }, 60_000);

  it('is held by one replica at a time; when it stops another takes over and the window between is back-filled', async () => {
    const { user, tags } = await watching();
    const first = holder();
    const second = holder();
    await waitFor(async () => (first.connected() || second.connected()) && (await streamedCount(tags)) === 2, 10_000, 'one holder connected');
    expect([first.holding(), second.holding()].filter(Boolean)).toHaveLength(1);
    await searchedSinceJoining(tags);
    const [active, standby] = first.holding() ? [first, second] : [second, first];

    const ids = [post('writer1', tags[0], 'first holder')];
    await waitFor(async () => (await fx.items(user)).length === 1, 10_000, 'streamed by the first holder');
    await active.stop();
    ids.push(post('writer2', tags[1], 'nobody holds it'));
    await waitFor(() => standby.connected(), 10_000, 'the standby connected');
    ids.push(post('writer1', tags[1], 'second holder'));
    await waitFor(async () => {
      await fx.scanner().runTick();
      return (await fx.items(user)).length === 3 && (await readCoverage(fx.pool())).unfilledGaps === 0;
    }, 30_000, 'every post stored and the gap back-filled');
    await expectOnce(user, ids);
    expect(fx.sim.state.streamStatus().connections).toHaveLength(1);
  }, 60_000);

  it('once the stream is down, its sources are searched again from where its coverage reached, not from their old cursors', async () => {
    const { user, tags } = await watching();
    // A pack searches from its oldest cursor: only this test's sources may share it.
    await fx.pool().query(`UPDATE tracks SET status = 'deleted' WHERE user_id <> $1`, [user]);
    await fx.scanner().runTick();
    const stream = holder();
    await waitFor(async () => stream.connected() && (await streamedCount(tags)) === 2, 10_000, 'both sources streamed');
    await searchedSinceJoining(tags);
    const ids = [post('writer1', tags[0], 'streamed')];
    await waitFor(async () => (await fx.items(user)).length === 1, 10_000, 'the streamed item');
    await sleep(300);
    const { coveredUntil } = await readCoverage(fx.pool());
    await stream.stop();

    ids.push(post('writer2', tags[1], 'searched'));
    await sleep(TIMING.staleSeconds * 1000 + 200);
    expect((await readCoverage(fx.pool())).live).toBe(false);
    await fx.makeDue();
    const before = fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).length;
    await fx.scanner().runTick();
    const searches = fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).slice(before);
    expect(searches.length).toBeGreaterThan(0);
    const floor = snowflakeFloor((coveredUntil as Date).getTime() - TIMING.marginSeconds * 1000);
    for (const search of searches) expect(BigInt(String(search.query.since_id))).toBeGreaterThanOrEqual(floor - (1n << 22n) * 1000n);
    await expectOnce(user, ids);
  }, 30_000);

  it('keeps searching the sources the rule cap leaves out, fastest cadence first on the stream', async () => {
    run += 1;
    const fast = await fx.account({ scanIntervalSeconds: 10 });
    const slow = await fx.account({ scanIntervalSeconds: 60 });
    const fastTag = `capfast${run}`;
    const slowTag = `capslow${run}`;
    await fx.track(fast, fastTag);
    await fx.track(slow, slowTag);
    // Only these two sources are wanted in this test.
    await fx.pool().query(`UPDATE tracks SET status = 'deleted' WHERE user_id <> ALL($1)`, [[fast, slow]]);
    await fx.scanner().runTick();
    // Room for one rule, each rule room for one source: the faster cadence wins it.
    const stream = holder({ limits: { maxRules: 1, maxLength: 16 } });
    await waitFor(async () => stream.connected() && (await streamedCount([fastTag])) === 1, 10_000, 'the fast source streamed');
    expect(await streamedCount([slowTag])).toBe(0);
    const ids = { fast: post('writer1', fastTag), slow: post('writer1', slowTag) };
    await waitFor(async () => (await fx.items(fast)).length === 1, 10_000, 'the fast source streamed its post');
    await fx.makeDue();
    await fx.scanner().runTick();
    await expectOnce(slow, [ids.slow]);
    await expectOnce(fast, [ids.fast]);
  }, 30_000);

  it('leaves a watched account whose mentions are asked for to search, and streams it once they are not', async () => {
    const { user, tags } = await watching();
    const handle = `strmhandle${run}`;
    fx.sim.state.createUser({ username: handle });
    const account = await fx.accountTrack(user, handle, { includeMentions: true });
    await fx.makeDue();
    await fx.scanner().runTick();
    const stream = holder();
    await waitFor(async () => stream.connected() && (await streamedCount(tags)) === 2, 10_000, 'the tags streamed');
    const handleStreamed = async () => (await fx.pool().query("SELECT 1 FROM source_cursors WHERE source_key = $1 AND streamed_since IS NOT NULL", [`user:${handle}`])).rowCount;
    expect(await handleStreamed()).toBe(0);
    expect((await fx.xClient().streamRules()).some((rule) => rule.value.includes(handle))).toBe(false);
    const mention = fx.sim.state.injectPost({ author: 'writer2', text: `hi @${handle}` }).id;
    await fx.makeDue();
    await fx.scanner().runTick();
    expect((await fx.items(user)).filter((item) => item.matched_by === 'mention').map((item) => item.x_post_id)).toEqual([mention]);

    await fx.pool().query('UPDATE account_tracks SET include_mentions = false WHERE id = $1', [account]);
    await fx.scanner().runTick();
    await waitFor(async () => (await handleStreamed()) === 1, 10_000, 'the handle streamed');
    await fx.pool().query(`UPDATE source_cursors SET streamed_since = scan_started_at - interval '3 seconds' WHERE source_key = $1`, [`user:${handle}`]);

    // Mentions asked for again while the stream holds the handle: the next tick searches it, mentions and all.
    await fx.pool().query('UPDATE account_tracks SET include_mentions = true WHERE id = $1', [account]);
    const again = fx.sim.state.injectPost({ author: 'writer3', text: `again @${handle}` }).id;
    await fx.makeDue();
    await fx.scanner().runTick();
    expect((await fx.items(user)).filter((item) => item.matched_by === 'mention').map((item) => item.x_post_id).sort()).toEqual([mention, again].sort());
  }, 30_000);

  it('follows the sources: a rule stays while half of its sources are wanted, and goes with the last of them', async () => {
    const { user, tags } = await watching();
    const stream = holder();
    await waitFor(async () => stream.connected() && (await streamedCount(tags)) === 2, 10_000, 'both sources streamed');
    const ruleOf = async (tag: string) => (await fx.xClient().streamRules()).find((rule) => rule.value.includes(`#${tag} `) || rule.value.includes(`#${tag})`));
    const rule = await ruleOf(tags[0]);
    expect(rule?.value).toContain(`#${tags[1]}`);

    // One of the rule's two sources goes: the rule stays as it is (no rule write), the source's row with it.
    await fx.pool().query(`UPDATE tracks SET status = 'deleted' WHERE user_id = $1 AND hashtag_norm = $2`, [user, tags[1]]);
    await fx.scanner().runTick();
    expect(await streamedCount(tags)).toBe(1);
    await sleep(1_000);
    expect((await ruleOf(tags[0]))?.id).toBe(rule?.id);

    // The last one goes: so does the rule.
    await fx.pool().query(`UPDATE tracks SET status = 'deleted' WHERE user_id = $1`, [user]);
    await fx.scanner().runTick();
    await waitFor(async () => (await ruleOf(tags[0])) === undefined, 10_000, 'the rule deleted');
    expect(await streamedCount(tags)).toBe(0);
  }, 30_000);
});

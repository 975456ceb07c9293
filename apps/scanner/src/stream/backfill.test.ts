import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@hashwatch/testing';
import { useScannerFixture, type ScannerFixture } from '../test-support/scanner-fixture';

// One search per 2-second window: a gap of three packs takes three windows.
const fx: ScannerFixture = useScannerFixture();
const TAGS = ['backfillwindowalphaverylongtagname', 'backfillwindowbetaverylongtagname', 'backfillwindowgammaverylongtagname'];

describe('back-filling a window the stream missed', () => {
  it('resumes after the packs already done when the rate budget stops it, and stores every post once', async () => {
    const user = await fx.account();
    for (const tag of TAGS) await fx.track(user, tag, { createdAt: new Date(Date.now() - 10 * 60_000) });
    // 64-character queries: one tag a pack.
    const scanner = fx.scanner({ maxQueryLength: 64 });
    await scanner.runTick();
    // The sources are served by a live stream (joined long ago, searched since), and a window 2 minutes to 20 s ago
    // was missed: what was published in it is only to be had from search.
    await fx.pool().query(
      `UPDATE source_cursors SET streamed_since = now() - interval '10 minutes', scan_started_at = now() - interval '5 minutes',
              last_scan_at = now() - interval '5 minutes'`,
    );
    await fx.pool().query(`INSERT INTO stream_state (id, covered_until, margin_seconds, stale_seconds) VALUES (1, now(), 2, 60)`);
    await fx.pool().query(`INSERT INTO stream_gaps (starts_at, ends_at) VALUES (now() - interval '2 minutes', now() - interval '20 seconds')`);
    const created = new Date(Date.now() - 60_000).toISOString();
    const ids = TAGS.map((tag, i) => fx.sim.state.injectPost({ author: `bfwriter${i}`, text: `#${tag} missed`, created_at: created }).id);
    fx.sim.state.limiter.setLimit('search_recent', { app: 1 });
    // A fresh window: the searches of the tick above used up the one before.
    await sleep(2_100);

    const backfillQueries = () =>
      fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).filter((entry) => entry.query.end_time !== undefined && entry.status === 200).map((entry) => String(entry.query.query));
    await scanner.runTick();
    const { rows: first } = await fx.pool().query<{ done_keys: string[]; filled_at: Date | null }>('SELECT done_keys, filled_at FROM stream_gaps');
    expect(first[0]?.filled_at).toBeNull();
    expect(first[0]?.done_keys).toHaveLength(1);

    await waitFor(async () => {
      await sleep(500);
      await scanner.runTick();
      const { rows } = await fx.pool().query<{ filled_at: Date | null }>('SELECT filled_at FROM stream_gaps');
      return rows[0]?.filled_at !== null;
    }, 30_000, 'the gap filled');
    // Each pack searched once: a resumed back-fill does not start over.
    expect(backfillQueries().sort()).toEqual(TAGS.map((tag) => `(#${tag})`).sort());
    expect((await fx.items(user)).map((item) => item.x_post_id).sort()).toEqual([...ids].sort());
    expect(await fx.usage(user)).toMatchObject({ alerts_used: ids.length });
  }, 60_000);
});

import { setTimeout as sleep } from 'node:timers/promises';
import { useScannerFixture } from './test-support/scanner-fixture';

// A 30 s window of 45 recent searches (X: 450 per 15 minutes), of which the scans plan to spend 32.
const WINDOW_SECONDS = 30;
const budget = { requests: 32, windowSeconds: WINDOW_SECONDS };
// 95-letter hashtags: five fill a 512-character query, so 40 of them need 8 searches per scan.
const longTag = (i: number) => `flood${String(i).padStart(2, '0')}${'q'.repeat(88)}`;

describe('fair shares of the search budget', () => {
  const fx = useScannerFixture({ rateLimitWindowSeconds: WINDOW_SECONDS, rateLimits: { search_recent: { app: 45 } } });

  async function trackError(trackId: string): Promise<string | null> {
    const { rows } = await fx.pool().query<{ scan_error: string | null }>('SELECT scan_error FROM tracks WHERE id = $1', [trackId]);
    return rows[0]?.scan_error ?? null;
  }

  async function intervalOf(sourceKey: string): Promise<number | undefined> {
    const { rows } = await fx.pool().query<{ interval_seconds: number }>('SELECT interval_seconds FROM source_cursors WHERE source_key = $1', [sourceKey]);
    return rows[0]?.interval_seconds;
  }

  async function lastScanOf(sourceKey: string): Promise<Date | null> {
    const { rows } = await fx.pool().query<{ last_scan_at: Date | null }>('SELECT last_scan_at FROM source_cursors WHERE source_key = $1', [sourceKey]);
    return rows[0]?.last_scan_at ?? null;
  }

  it('keeps a modest account at its cadence while another asks for eight times the budget', async () => {
    // Both on a 2 s cadence: the flooder's 40 long tags ask 4 searches a second, the modest account's tag 0.5.
    const flooder = await fx.account({ scanIntervalSeconds: 2 });
    for (let i = 0; i < 40; i += 1) await fx.track(flooder, longTag(i));
    const modest = await fx.account({ scanIntervalSeconds: 2 });
    const calmTrack = await fx.track(modest, 'calm');
    const scanner = fx.scanner({ searchBudget: budget, fairShareEveryMs: 0 });

    const injected = new Map<string, number>();
    const errors = new Set<string>();
    const started = Date.now();
    let nextPost = started;
    let firstFloodScan: Date | null = null;
    while (Date.now() - started < 22_000) {
      if (Date.now() >= nextPost && Date.now() - started < 18_000) {
        const post = fx.sim.state.injectPost({ author: 'calmwriter', text: `#calm ${injected.size}` });
        injected.set(post.id, Date.now());
        nextPost += 1000;
      }
      await scanner.runTick();
      firstFloodScan ??= await lastScanOf(`tag:${longTag(0)}`);
      const error = await trackError(calmTrack);
      if (error) errors.add(error);
      await sleep(200);
    }

    // The modest account never met the flooder's 429s and saw every post within two of its intervals and a second.
    expect([...errors]).toEqual([]);
    const items = await fx.items(modest);
    expect(items.map((item) => item.x_post_id).sort()).toEqual([...injected.keys()].sort());
    const delays = items.map((item) => item.detected_at.getTime() - (injected.get(item.x_post_id) ?? 0));
    expect(Math.max(...delays)).toBeLessThanOrEqual(2 * 2000 + 1000);
    // The flooder scans at the largest power-of-two multiple that fits what the modest account leaves: 8 × 2 s.
    expect(await intervalOf(`tag:${longTag(0)}`)).toBe(16);
    expect(await intervalOf('tag:calm')).toBe(2);
    const { rows } = await fx.pool().query<{ user_id: string; stretch: number }>('SELECT user_id, stretch FROM scan_shares');
    expect(rows).toEqual([{ user_id: flooder, stretch: 8 }]);
    // It is slowed, not starved: each of its sources was scanned again after the first time.
    const { rows: scans } = await fx.pool().query<{ scanned: number }>(
      `SELECT count(*)::int AS scanned FROM source_cursors WHERE source_key LIKE 'tag:flood%' AND last_scan_at > $1`,
      [firstFloodScan],
    );
    expect(scans[0]?.scanned).toBe(40);
  }, 60_000);

  it('gives a source tracked by a stretched and an unstretched account the faster cadence, and forgets a stretch no longer needed', async () => {
    await fx.pool().query('DELETE FROM tracks');
    const flooder = await fx.account({ scanIntervalSeconds: 2 });
    const flooderTracks: string[] = [];
    for (let i = 0; i < 40; i += 1) flooderTracks.push(await fx.track(flooder, longTag(i)));
    await fx.track(flooder, 'both');
    const modest = await fx.account({ scanIntervalSeconds: 2 });
    await fx.track(modest, 'both');
    const scanner = fx.scanner({ searchBudget: budget, fairShareEveryMs: 0 });
    await scanner.runTick();

    const { rows } = await fx.pool().query<{ user_id: string; stretch: number }>('SELECT user_id, stretch FROM scan_shares');
    expect(rows).toEqual([{ user_id: flooder, stretch: 8 }]);
    expect(await intervalOf(`tag:${longTag(0)}`)).toBe(16);
    expect(await intervalOf('tag:both')).toBe(2);

    // The flooder drops its long tags: its demand fits again, and its cadence comes back.
    await fx.pool().query('DELETE FROM tracks WHERE id = ANY($1)', [flooderTracks]);
    await scanner.runTick();
    expect((await fx.pool().query('SELECT * FROM scan_shares')).rows).toEqual([]);
    expect(await intervalOf('tag:both')).toBe(2);
  }, 30_000);
});

import { DEFAULT_SILENCE_PARAMS } from './silence/silence-detector';
import { recordFailure, type ScanFailure } from './storing/record-failure';
import { useScannerFixture, type ScannerFixture } from './test-support/scanner-fixture';

interface NoticeRow {
  id: string;
  user_id: string;
  kind: string;
  subject: string;
  source: string | null;
  message: string;
  resolved_at: Date | null;
}

async function notices(fx: ScannerFixture, kind?: string): Promise<NoticeRow[]> {
  const { rows } = await fx.pool().query<NoticeRow>(
    `SELECT id, user_id, kind, subject, source, message, resolved_at FROM notices WHERE $1::text IS NULL OR kind = $1 ORDER BY user_id, opened_at`,
    [kind ?? null],
  );
  return rows;
}

/** The deliver-notice jobs of these notices written to the outbox (no relay runs here), as `<notice id>:<state>`. */
async function noticeJobs(fx: ScannerFixture, ids: readonly string[]): Promise<string[]> {
  const { rows } = await fx.pool().query<{ payload: unknown }>(`SELECT payload FROM outbox_jobs WHERE name = 'deliver-notice'`);
  return rows
    .flatMap((row) => (Array.isArray(row.payload) ? (row.payload as { payload: unknown }[]).map((job) => job.payload) : [row.payload]))
    .filter((payload) => ids.includes((payload as { noticeId: string }).noticeId))
    .map((payload) => `${(payload as { noticeId: string }).noticeId}:${(payload as { state: string }).state}`)
    .sort();
}

const MIN = 60_000;

describe('source notices', () => {
  const fx = useScannerFixture();

  async function tick(scanner = fx.scanner()) {
    await fx.makeDue();
    return scanner.runTick();
  }

  it('raises one source_failing per account tracking a source after 3 scans answered 401, and resolves each at the first success', async () => {
    const [ann, ben, cid] = [await fx.account(), await fx.account(), await fx.account()];
    await fx.track(ann, 'Sodium');
    await fx.track(ben, 'sodium', { lang: 'en' });
    await fx.track(ben, 'sodium', { lang: 'fr' });
    await fx.track(cid, 'kalium');
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'unauthorized', count: 4 });

    await tick();
    await tick();
    expect(await notices(fx)).toEqual([]);
    await tick();
    const raised = await notices(fx);
    // One query served both tags: both sources failed 3 times; one notice per account and source.
    expect(raised.map((n) => [n.user_id, n.kind, n.subject, n.source, n.resolved_at])).toEqual(
      expect.arrayContaining([
        [ann, 'source_failing', '#sodium', '#sodium', null],
        [ben, 'source_failing', '#sodium', '#sodium', null],
        [cid, 'source_failing', '#kalium', '#kalium', null],
      ]),
    );
    expect(raised).toHaveLength(3);
    expect(raised[0]?.message).toMatch(/could not scan #\w+ 3 times in a row \(X refused the credentials \(401\)\)/);
    expect(raised[0]?.message).not.toMatch(/token|bearer/i);

    await tick();
    expect((await notices(fx)).map((n) => n.id).sort()).toEqual(raised.map((n) => n.id).sort());

    const post = fx.sim.state.injectPost({ author: 'dee', text: '#sodium lamp' });
    await tick();
    const after = await notices(fx);
    expect(after.map((n) => n.id).sort()).toEqual(raised.map((n) => n.id).sort());
    expect(after.every((n) => n.resolved_at instanceof Date)).toBe(true);
    expect((await fx.items(ann)).map((item) => item.x_post_id)).toEqual([post.id]);
    expect(await noticeJobs(fx, raised.map((n) => n.id))).toEqual(raised.flatMap((n) => [`${n.id}:open`, `${n.id}:resolved`]).sort());

    // Scans keep succeeding: nothing more is opened or resolved.
    await tick();
    expect(await noticeJobs(fx, raised.map((n) => n.id))).toHaveLength(6);
    expect(await notices(fx, 'source_silent')).toEqual([]);
  });

  it('raises source_failing for a handle X does not know (renamed, suspended, deleted) after 3 look-ups, resolved once X knows it', async () => {
    const ann = await fx.account();
    await fx.accountTrack(ann, 'ghost_writer');
    const lookUpAgain = () => fx.pool().query(`UPDATE source_cursors SET updated_at = now() - interval '11 minutes' WHERE source_key = 'user:ghost_writer'`);
    await tick();
    await lookUpAgain();
    await tick();
    expect((await notices(fx)).filter((n) => n.user_id === ann)).toEqual([]);
    await lookUpAgain();
    await tick();
    const raised = (await notices(fx)).filter((n) => n.user_id === ann);
    expect(raised.map((n) => [n.kind, n.source, n.resolved_at])).toEqual([['source_failing', '@ghost_writer', null]]);
    expect(raised[0]?.message).toContain('X does not know @ghost_writer: the account may have been renamed, suspended or deleted.');

    fx.sim.state.createUser({ username: 'ghost_writer' });
    await lookUpAgain();
    await tick();
    const after = (await notices(fx)).filter((n) => n.user_id === ann);
    expect(after.map((n) => [n.id, n.kind])).toEqual([[raised[0]?.id, 'source_failing']]);
    expect(after[0]?.resolved_at).toBeInstanceOf(Date);
  });

  it('raises one notice per account with two scanner replicas, and when two failures of a source are recorded at once', async () => {
    const [ann, ben] = [await fx.account(), await fx.account()];
    await fx.track(ann, 'argentum');
    await fx.track(ben, 'argentum');
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'unauthorized', count: 5 });
    const [one, two] = [fx.scanner(), fx.scanner()];
    for (let round = 0; round < 5; round += 1) {
      await fx.makeDue();
      await Promise.all([one.runTick(), two.runTick()]);
    }
    const raised = (await notices(fx, 'source_failing')).filter((n) => n.subject === '#argentum');
    expect(raised.map((n) => n.user_id).sort()).toEqual([ann, ben].sort());

    // Two replicas recording a failure of the same source at the same moment: still one open notice each.
    await fx.track(ann, 'aurum');
    await fx.track(ben, 'aurum');
    await fx.pool().query(`UPDATE notices SET resolved_at = now() - interval '2 hours' WHERE subject = '#argentum'`);
    await fx.makeDue();
    await fx.scanner().runTick();
    const source = { key: 'tag:aurum', kind: 'tag' as const, name: 'aurum' };
    await fx.pool().query(`UPDATE source_cursors SET failures = 2 WHERE source_key = 'tag:aurum'`);
    const failure: ScanFailure = { reason: 'X refused the credentials (401)', retry: { kind: 'backoff' }, counts: true };
    await Promise.all([recordFailure(fx.pool(), [source], failure, 1), recordFailure(fx.pool(), [source], failure, 2)]);
    const aurum = (await notices(fx, 'source_failing')).filter((n) => n.subject === '#aurum');
    expect(aurum.map((n) => n.user_id).sort()).toEqual([ann, ben].sort());
  });

  it('raises one source_silent per account when a source goes quiet far longer than its pace, and resolves it when a post arrives', async () => {
    const [ann, ben] = [await fx.account(), await fx.account()];
    const createdAt = new Date(Date.now() - 3 * 60 * MIN);
    await fx.track(ann, 'neodym', { createdAt });
    await fx.accountTrack(ben, 'neo_writer', { createdAt });
    fx.sim.state.createUser({ username: 'neo_writer' });
    // A post a minute for 30 minutes, the last 70 minutes ago, on both sources.
    const start = Date.now() - 100 * MIN;
    for (let i = 0; i < 30; i += 1) {
      fx.sim.state.injectPost({ author: 'neo_writer', text: `#neodym ${i}`, created_at: new Date(start + i * MIN).toISOString() });
    }
    const scanner = fx.scanner({ sourceNotices: { silence: { ...DEFAULT_SILENCE_PARAMS, floorSeconds: 600 } } });
    await tick(scanner);
    const raised = await notices(fx, 'source_silent');
    expect(raised.map((n) => [n.user_id, n.source, n.resolved_at])).toEqual(
      expect.arrayContaining([
        [ann, '#neodym', null],
        [ben, '@neo_writer', null],
      ]),
    );
    expect(raised).toHaveLength(2);
    expect(raised[0]?.message).toMatch(/^No new post on [#@]\w+ for 1\.2 h, while it usually goes no more than about 1 min without one/);
    const { rows } = await fx.pool().query(`SELECT source_key, samples, silent_since IS NOT NULL AS silent FROM source_activity WHERE source_key IN ('tag:neodym', 'user:neo_writer') ORDER BY source_key`);
    expect(rows).toEqual([
      { source_key: 'tag:neodym', samples: 29, silent: true },
      { source_key: 'user:neo_writer', samples: 29, silent: true },
    ]);

    await tick(scanner);
    expect(await notices(fx, 'source_silent')).toHaveLength(2);

    fx.sim.state.injectPost({ author: 'neo_writer', text: '#neodym is back' });
    await tick(scanner);
    const resolved = await notices(fx, 'source_silent');
    expect(resolved.map((n) => n.id).sort()).toEqual(raised.map((n) => n.id).sort());
    expect(resolved.every((n) => n.resolved_at instanceof Date)).toBe(true);
    expect(await noticeJobs(fx, raised.map((n) => n.id))).toEqual(raised.flatMap((n) => [`${n.id}:open`, `${n.id}:resolved`]).sort());
    expect((await notices(fx, 'source_failing')).filter((n) => n.user_id === ann || n.user_id === ben)).toEqual([]);
  });

  it('never calls a failing source silent: only source_failing, resolved when scans succeed again', async () => {
    const ann = await fx.account();
    await fx.track(ann, 'ferrum', { createdAt: new Date(Date.now() - 3 * 60 * MIN) });
    const start = Date.now() - 100 * MIN;
    for (let i = 0; i < 30; i += 1) fx.sim.state.injectPost({ author: 'fe', text: `#ferrum ${i}`, created_at: new Date(start + i * MIN).toISOString() });
    const scanner = fx.scanner({ sourceNotices: { silence: { ...DEFAULT_SILENCE_PARAMS, floorSeconds: 600 } } });
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'unauthorized', count: 4 });
    for (let i = 0; i < 4; i += 1) await tick(scanner);
    expect((await notices(fx)).filter((n) => n.source === '#ferrum').map((n) => [n.kind, n.resolved_at])).toEqual([['source_failing', null]]);
    const { rows } = await fx.pool().query(`SELECT 1 FROM source_activity WHERE source_key = 'tag:ferrum'`);
    expect(rows).toEqual([]);

    fx.sim.state.injectPost({ author: 'fe', text: '#ferrum again' });
    await tick(scanner);
    const all = (await notices(fx)).filter((n) => n.source === '#ferrum');
    expect(all.map((n) => n.kind)).toEqual(['source_failing']);
    expect(all[0]?.resolved_at).toBeInstanceOf(Date);
  });
});

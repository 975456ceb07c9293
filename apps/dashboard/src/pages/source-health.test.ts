import { ago, sourceHealth } from './source-health';

const now = new Date('2026-11-26T12:00:00.000Z');
const before = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

describe('ago', () => {
  it.each([
    [0, '0 s ago'],
    [59, '59 s ago'],
    [60, '1 min ago'],
    [3599, '60 min ago'],
    [3600, '1 h ago'],
    [172_799, '48 h ago'],
    [172_800, '2 days ago'],
    [-30, '0 s ago'],
  ])('%d s before now is %s', (seconds, text) => {
    expect(ago(before(seconds), now)).toBe(text);
  });
});

describe('sourceHealth (60 s cadence: stale after 3 cadences + 60 s = 240 s)', () => {
  const source = { created_at: before(86_400), last_scanned_at: before(30), last_post_at: before(600), scan_error: null };

  it('is ok after a recent scan, saying when it scanned and when the last post came', () => {
    expect(sourceHealth(source, 60, now)).toEqual({ state: 'ok', detail: 'scanned 30 s ago, last post 10 min ago' });
    expect(sourceHealth({ ...source, last_post_at: null }, 60, now)).toEqual({ state: 'ok', detail: 'scanned 30 s ago, no post yet' });
  });

  it('is failing with the API’s reason whenever the last scan failed', () => {
    expect(sourceHealth({ ...source, scan_error: 'X answered 429' }, 60, now)).toEqual({ state: 'failing', detail: 'X answered 429' });
  });

  it('is stale once no scan happened for three cadences and the grace minute', () => {
    expect(sourceHealth({ ...source, last_scanned_at: before(240) }, 60, now).state).toBe('ok');
    expect(sourceHealth({ ...source, last_scanned_at: before(241) }, 60, now)).toEqual({ state: 'stale', detail: 'not scanned since 4 min ago' });
  });

  it('is waiting before the first scan of a new source, and stale when that scan is overdue', () => {
    const fresh = { ...source, last_scanned_at: null, last_post_at: null };
    expect(sourceHealth({ ...fresh, created_at: before(100) }, 60, now)).toEqual({ state: 'waiting', detail: 'first scan pending' });
    expect(sourceHealth({ ...fresh, created_at: before(241) }, 60, now)).toEqual({ state: 'stale', detail: 'never scanned since it was added' });
  });
});

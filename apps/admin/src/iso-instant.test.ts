import { isoInstant } from './iso-instant';

describe('isoInstant', () => {
  it('reads extended and basic ISO 8601 date-times with a zone', () => {
    expect(isoInstant('2026-12-01T00:00:00Z')?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(isoInstant('2026-12-01T02:00:00.5+02:00')?.toISOString()).toBe('2026-12-01T00:00:00.500Z');
    expect(isoInstant('20261201T0200+0200')?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(isoInstant('2026-12-01T00:00Z')?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it('answers null for text without a zone, a date alone, or an impossible date', () => {
    expect(isoInstant('2026-12-01T00:00:00')).toBeNull();
    expect(isoInstant('2026-12-01')).toBeNull();
    expect(isoInstant('2026-02-30T00:00:00Z')).toBeNull();
    expect(isoInstant('2026-12-01T24:00:00Z')).toBeNull();
    expect(isoInstant('tomorrow')).toBeNull();
  });
});

import { retryDelayMs } from './retry-delay';

describe('retryDelayMs', () => {
  const options = { baseMs: 5_000, maxMs: 3_600_000 };

  it('doubles per attempt, between half and all of the exponential step', () => {
    expect(retryDelayMs(1, options, () => 0)).toBe(2_500);
    expect(retryDelayMs(1, options, () => 1)).toBe(5_000);
    expect(retryDelayMs(4, options, () => 1)).toBe(40_000);
  });

  it('never exceeds the cap, however many attempts were made', () => {
    expect(retryDelayMs(60, options, () => 1)).toBe(3_600_000);
    expect(retryDelayMs(60, options, () => 0)).toBe(1_800_000);
  });
});

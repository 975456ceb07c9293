import { waitFor } from './wait-for';

describe('waitFor', () => {
  it('resolves once the condition holds', async () => {
    let calls = 0;
    await waitFor(async () => ++calls >= 3, 10_000, 'the third call');
    expect(calls).toBe(3);
  });

  it('rejects naming what it waited for when the condition never holds within the time-out', async () => {
    await expect(waitFor(() => false, 200, 'a condition that never holds')).rejects.toThrow('timed out after 200 ms waiting for a condition that never holds');
  });

  it('rejects with the error the condition throws', async () => {
    await expect(waitFor(() => { throw new Error('probe failed'); }, 10_000, 'anything')).rejects.toThrow('probe failed');
  });

  it('polls at the given interval', async () => {
    let calls = 0;
    await expect(waitFor(() => { calls += 1; return false; }, 300, 'nothing', 100)).rejects.toThrow('timed out after 300 ms');
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(5);
  });

  it('asks the condition once more when the time-out passed during the pause between polls', async () => {
    let calls = 0;
    await waitFor(() => ++calls >= 2, 30, 'the second call', 100);
    expect(calls).toBe(2);
  });
});

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
});

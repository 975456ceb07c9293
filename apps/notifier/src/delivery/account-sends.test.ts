import { createAccountSends } from './account-sends';

describe('sends in flight per account', () => {
  it('refuses an account its cap-plus-one-th send in this replica while other accounts still get theirs', () => {
    const sends = createAccountSends(2);
    expect([sends.tryTake('usr_a', 'wh_1'), sends.tryTake('usr_a', 'wh_2'), sends.tryTake('usr_a', 'wh_3')]).toEqual([true, true, false]);
    expect(sends.tryTake('usr_b', 'wh_9')).toBe(true);
    sends.release('usr_a');
    expect(sends.tryTake('usr_a', 'wh_3')).toBe(true);
  });

  it('says a channel is busy only while the account it last sent for is at its cap', () => {
    const sends = createAccountSends(1);
    expect(sends.busy('wh_1')).toBe(false);
    sends.tryTake('usr_a', 'wh_1');
    expect(sends.busy('wh_1')).toBe(true);
    expect(sends.busy('wh_other')).toBe(false);
    sends.release('usr_a');
    expect([sends.busy('wh_1'), sends.inFlight('usr_a')]).toEqual([false, 0]);
  });
});

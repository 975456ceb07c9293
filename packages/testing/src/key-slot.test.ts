import { keySlot } from './key-slot';

describe('keySlot', () => {
  it('answers as CLUSTER KEYSLOT does', () => {
    // Values from the Redis Cluster specification and from CLUSTER KEYSLOT on Redis 7.
    expect(keySlot('123456789')).toBe(12739);
    expect(keySlot('x:{source-scans}:y')).toBe(6933);
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
    // An empty first tag: the whole key counts.
    expect(keySlot('foo{}{bar}')).toBe(8363);
    expect(keySlot('foo{{bar}}zap')).toBe(4015);
  });
});

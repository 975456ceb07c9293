import type { Request } from 'express';
import { addressKey } from './client-address';

const from = (ip: string) => addressKey({ ip } as Request);

describe('addressKey', () => {
  it('counts an IPv4 client (also when mapped into IPv6) by its address', () => {
    expect(from('198.51.100.7')).toBe('198.51.100.7');
    expect(from('::ffff:198.51.100.7')).toBe('198.51.100.7');
  });

  it('counts an IPv6 client by its /64, however the address is written', () => {
    expect(from('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(from('2001:0db8:0000:0001:ffff:1:2:3')).toBe('2001:db8:0:1::/64');
    expect(from('2001:db8::5')).toBe('2001:db8:0:0::/64');
    expect(from('::1')).toBe('0:0:0:0::/64');
    expect(from('2001:db8:0:2::1')).not.toBe(from('2001:db8:0:1::1'));
  });
});

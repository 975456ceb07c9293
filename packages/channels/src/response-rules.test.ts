import { channelAdapters, type ChannelKind } from './index';
import { retryAfterMs } from './response-rules';

const kinds = Object.keys(channelAdapters) as ChannelKind[];

describe('rules every adapter shares', () => {
  it.each(kinds)('%s retries a network failure or timeout', (kind) => {
    const { interpret } = channelAdapters[kind];
    expect(interpret({ failure: 'network', reason: 'the connection was reset' })).toEqual({ outcome: 'retry', reason: 'the connection was reset' });
    expect(interpret({ failure: 'timeout', reason: 'no complete answer within 10 ms' })).toMatchObject({ outcome: 'retry' });
  });

  it.each(kinds)('%s fails permanently when the SSRF guard refused the address', (kind) => {
    const reason = 'the destination address 10.0.0.1 is in a loopback, private, link-local, shared, multicast or reserved range';
    expect(channelAdapters[kind].interpret({ failure: 'refused', reason })).toEqual({ outcome: 'permanent', reason });
  });

  it.each(kinds)('%s fails permanently on a redirect', (kind) => {
    expect(channelAdapters[kind].interpret({ status: 301, headers: { location: 'http://127.0.0.1/' }, body: '' })).toMatchObject({
      outcome: 'permanent',
      reason: expect.stringContaining('redirects are not followed'),
    });
  });
});

describe('retryAfterMs', () => {
  it('reads delay-seconds, fractional ones too', () => {
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(retryAfterMs({ 'retry-after': '0.5' })).toBe(500);
  });

  it('ignores a missing or unreadable value', () => {
    expect(retryAfterMs({})).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'Sun, 22 Nov 2026 01:26:30 GMT' })).toBeUndefined();
  });
});

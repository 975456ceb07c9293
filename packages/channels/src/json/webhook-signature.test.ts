import { createHmac } from 'node:crypto';
import { generateSigningSecret, signWebhook, SigningSecretError, verifyWebhookSignature } from './webhook-signature';

describe('webhook signatures', () => {
  const secret = generateSigningSecret();
  const now = new Date('2026-11-22T01:25:00.000Z');
  const timestamp = Math.floor(now.getTime() / 1000);
  const body = '{"type":"post","text":"héllo"}';
  const headers = () => ({ 'webhook-id': 'dlv_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, 'dlv_1', timestamp, body) });

  it('makes whsec_ secrets of 32 random bytes', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it('signs id.timestamp.body with HMAC-SHA256 keyed by the decoded secret', () => {
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64')).update(`dlv_1.${timestamp}.${body}`).digest('base64');
    expect(signWebhook(secret, 'dlv_1', timestamp, body)).toBe(`v1,${expected}`);
  });

  it('verifies its own signature', () => {
    expect(verifyWebhookSignature(secret, headers(), body, { now })).toEqual({ valid: true, id: 'dlv_1', timestamp });
  });

  it('accepts a list of signatures where one matches (secret rotation) and reads headers in any case', () => {
    const rotated = { ...headers(), 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${headers()['webhook-signature']}` };
    const upper = Object.fromEntries(Object.entries(rotated).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verifyWebhookSignature(secret, upper, body, { now }).valid).toBe(true);
  });

  it.each([
    ['a changed body', { body: body.replace('post', 'test') }],
    ['a changed id', { id: 'dlv_2' }],
    ['a changed timestamp', { timestamp: String(timestamp + 1) }],
  ])('rejects %s', (_label, change: { body?: string; id?: string; timestamp?: string }) => {
    const tampered = { ...headers(), 'webhook-id': change.id ?? 'dlv_1', 'webhook-timestamp': change.timestamp ?? String(timestamp) };
    expect(verifyWebhookSignature(secret, tampered, change.body ?? body, { now })).toEqual({ valid: false, reason: 'invalid_signature' });
  });

  it('rejects a signature made with another secret', () => {
    expect(verifyWebhookSignature(generateSigningSecret(), headers(), body, { now }).valid).toBe(false);
  });

  it('rejects a timestamp outside the tolerance window as a replay', () => {
    const later = new Date(now.getTime() + 301_000);
    expect(verifyWebhookSignature(secret, headers(), body, { now: later })).toEqual({ valid: false, reason: 'timestamp_out_of_tolerance' });
    expect(verifyWebhookSignature(secret, headers(), body, { now: later, toleranceSeconds: 600 }).valid).toBe(true);
  });

  it('rejects a delivery missing a header', () => {
    const { 'webhook-signature': _dropped, ...rest } = headers();
    expect(verifyWebhookSignature(secret, rest, body, { now })).toEqual({ valid: false, reason: 'missing_headers' });
  });

  it('refuses a secret without the whsec_ prefix or of the wrong size', () => {
    expect(() => signWebhook('abc', 'id', 1, '')).toThrow(SigningSecretError);
    expect(() => signWebhook(`whsec_${Buffer.alloc(8).toString('base64')}`, 'id', 1, '')).toThrow(SigningSecretError);
  });
});

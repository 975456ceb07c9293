import { errorFromResponse, fieldOf } from './hashwatch-error';
import { rateLimitWaitMs } from './rate-limit-wait';

describe('fieldOf', () => {
  it.each([
    ['hashtag: Too small: expected string to have >=1 characters', 'hashtag'],
    ['body.lang: Invalid string', 'lang'],
    ['query.limit: Too big', 'limit'],
    ['path.id: Invalid', 'id'],
    ['webhooks.0.url: Invalid URL; webhooks.1.format: Invalid option', 'webhooks.0.url'],
    ['cursor: malformed; pass next_cursor exactly as it was returned', 'cursor'],
  ])('names the field of %j', (message, field) => {
    expect(fieldOf(message)).toBe(field);
  });

  it.each([
    'body: not valid JSON',
    'query: Invalid input',
    'unknown field remember',
    'delivery del_1 is not failed (it is delivered); only failed deliveries can be retried',
    'the subscription expired on 2026-11-22T01:24:59.123Z',
  ])('names no field in %j', (message) => {
    expect(fieldOf(message)).toBeUndefined();
  });
});

describe('errorFromResponse', () => {
  it('reads code, message, field and Retry-After from an error answer', () => {
    const response = new Response(null, { status: 400, headers: { 'Retry-After': '7' } });
    const error = errorFromResponse(response, { error: { code: 'invalid_request', message: 'hashtag: Invalid' } });
    expect(error).toMatchObject({ name: 'HashwatchError', status: 400, code: 'invalid_request', message: 'hashtag: Invalid', field: 'hashtag', retryAfterSeconds: 7 });
  });

  it('names a field only for invalid_request', () => {
    const error = errorFromResponse(new Response(null, { status: 403 }), { error: { code: 'plan_limit_reached', message: 'hashtags: 3 of 3' } });
    expect(error.field).toBeUndefined();
  });

  it('falls back to the status when the body is not the API error shape', () => {
    const error = errorFromResponse(new Response(null, { status: 502 }), 'Bad Gateway');
    expect(error).toMatchObject({ status: 502, code: 'http_502', message: 'Bad Gateway', field: undefined, retryAfterSeconds: undefined });
  });
});

describe('rateLimitWaitMs', () => {
  const now = Date.parse('2026-11-26T12:00:00.000Z');
  const headers = (init: Record<string, string>) => new Headers(init);

  it('waits Retry-After when the answer has it, whatever X-RateLimit-Reset says', () => {
    expect(rateLimitWaitMs(headers({ 'Retry-After': '3', 'X-RateLimit-Reset': String(now / 1000 + 50) }), now)).toBe(3000);
  });

  it('waits until X-RateLimit-Reset without Retry-After, never less than a second', () => {
    expect(rateLimitWaitMs(headers({ 'X-RateLimit-Reset': String(now / 1000 + 12) }), now)).toBe(12_000);
    // A reset already past (this clock ahead of the server's) still waits a second: no tight retry loop.
    expect(rateLimitWaitMs(headers({ 'X-RateLimit-Reset': String(now / 1000 - 5) }), now)).toBe(1000);
    expect(rateLimitWaitMs(headers({ 'Retry-After': '0' }), now)).toBe(1000);
  });

  it('knows no wait without either header', () => {
    expect(rateLimitWaitMs(headers({}), now)).toBeUndefined();
    expect(rateLimitWaitMs(headers({ 'Retry-After': 'soon' }), now)).toBeUndefined();
  });
});

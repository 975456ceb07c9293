import { HashwatchError } from '@hashwatch/sdk';
import { describeError, formProblem } from './errors';

/** An error as the SDK makes it from a gateway answer: `field` only for invalid_request, as errorFromResponse sets it. */
function apiError(status: number, code: string, message: string, extra: { field?: string; retryAfterSeconds?: number } = {}) {
  return new HashwatchError({ status, code, message, ...extra });
}

describe('describeError', () => {
  it.each([
    ['invalid_credentials', 401, 'The email or password is wrong.'],
    ['invalid_two_factor_code', 401, 'That code is wrong or already used. Wait for the next one and try again.'],
    ['two_factor_required', 401, 'Enter the code from your authenticator app.'],
    ['subscription_inactive', 402, 'Your subscription is not active. See Billing.'],
    ['csrf_failed', 403, 'Your session changed in another tab. Reload the page and try again.'],
    ['unauthorized', 401, 'You were signed out. Sign in again.'],
    ['internal_error', 500, 'Something went wrong on our side. Try again in a moment.'],
  ])('says %s in plain words, not the API’s', (code, status, text) => {
    expect(describeError(apiError(status, code, 'the api message'))).toBe(text);
  });

  it('says a request got no answer (status 0, network_error) in plain words', () => {
    expect(describeError(new HashwatchError({ status: 0, code: 'network_error', message: 'no answer from the Hashwatch API: ECONNREFUSED' }))).toBe(
      'The service cannot be reached. Check your connection and try again.',
    );
  });

  it('keeps the API’s message for a plan limit and says what to do about it', () => {
    expect(describeError(apiError(403, 'plan_limit_reached', 'the plan allows 3 hashtags and 3 are tracked'))).toBe(
      'the plan allows 3 hashtags and 3 are tracked. Delete one, or change your plan in Billing.',
    );
  });

  it('says how long to wait on a 429, in seconds or whole minutes, or “shortly” without Retry-After', () => {
    const limited = (retryAfterSeconds?: number) =>
      describeError(apiError(429, 'rate_limited', 'slow down', retryAfterSeconds === undefined ? {} : { retryAfterSeconds }));
    expect(limited(42)).toBe('Too many attempts. Try again in 42 s.');
    expect(limited(60)).toBe('Too many attempts. Try again in 1 minute.');
    expect(limited(61)).toBe('Too many attempts. Try again in 2 minutes.');
    expect(limited(900)).toBe('Too many attempts. Try again in 15 minutes.');
    expect(limited()).toBe('Too many attempts. Try again shortly.');
  });

  it('passes the API’s message through for codes it has no sentence for', () => {
    expect(describeError(apiError(409, 'already_exists', 'hashtag btc is already tracked'))).toBe('hashtag btc is already tracked');
  });

  it('reads any other error or value as text', () => {
    expect(describeError(new TypeError('boom'))).toBe('boom');
    expect(describeError('plain')).toBe('plain');
  });
});

describe('formProblem', () => {
  it('puts a 400 naming a field of the form next to that field, without the field’s name', () => {
    const error = apiError(400, 'invalid_request', 'hashtag: Too small: expected string to have >=1 characters', { field: 'hashtag' });
    expect(formProblem(error, ['hashtag'])).toEqual({ field: 'hashtag', message: 'Too small: expected string to have >=1 characters' });
  });

  it('matches a nested field to the form field it is part of', () => {
    const error = apiError(400, 'invalid_request', 'email.domain: not allowed', { field: 'email.domain' });
    expect(formProblem(error, ['password', 'email'])).toEqual({ field: 'email', message: 'not allowed' });
  });

  it('does not match a field that only starts with a form field’s name', () => {
    const error = apiError(400, 'invalid_request', 'emails: too many', { field: 'emails' });
    expect(formProblem(error, ['email'])).toEqual({ field: undefined, message: 'emails: too many' });
  });

  it('gives the form as a whole a 400 about a field it does not have, or one naming no field', () => {
    const other = apiError(400, 'invalid_request', 'code: must be exactly 6 digits', { field: 'code' });
    expect(formProblem(other, ['email', 'password'])).toEqual({ field: undefined, message: 'code: must be exactly 6 digits' });
    expect(formProblem(apiError(400, 'invalid_request', 'body: not valid JSON'), ['email'])).toEqual({ field: undefined, message: 'body: not valid JSON' });
  });

  it('gives every other failure to the whole form, in describeError’s words', () => {
    expect(formProblem(apiError(401, 'invalid_credentials', 'the email or the password is wrong'), ['email', 'password'])).toEqual({
      field: undefined, message: 'The email or password is wrong.',
    });
    expect(formProblem(apiError(403, 'plan_limit_reached', 'the plan allows 3 hashtags and 3 are tracked'), ['hashtag']).message).toBe(
      'the plan allows 3 hashtags and 3 are tracked. Delete one, or change your plan in Billing.',
    );
  });
});

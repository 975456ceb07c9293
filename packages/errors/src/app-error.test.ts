import { AppError, errorStatus, isAppError } from './app-error';

describe('AppError', () => {
  it('maps each code to its HTTP status', () => {
    expect(new AppError('invalid_request', 'x').status).toBe(400);
    expect(new AppError('unauthorized', 'x').status).toBe(401);
    expect(new AppError('subscription_inactive', 'x').status).toBe(402);
    expect(new AppError('plan_limit_reached', 'x').status).toBe(403);
    expect(new AppError('two_factor_required', 'x').status).toBe(403);
    expect(new AppError('invalid_two_factor_code', 'x').status).toBe(403);
    expect(new AppError('not_found', 'x').status).toBe(404);
    expect(new AppError('already_exists', 'x').status).toBe(409);
    expect(new AppError('payload_too_large', 'x').status).toBe(413);
    expect(new AppError('rate_limited', 'x').status).toBe(429);
    expect(new AppError('internal_error', 'x').status).toBe(500);
    expect(errorStatus('delivery_failed')).toBe(502);
  });

  it('is recognised by isAppError and keeps its retry hint', () => {
    const error = new AppError('rate_limited', 'wait 3 s', { retryAfterSeconds: 3 });
    expect(isAppError(error)).toBe(true);
    expect(isAppError(new Error('plain'))).toBe(false);
    expect(error.details.retryAfterSeconds).toBe(3);
  });

  it('answers the status a use names instead of its code\'s', () => {
    expect(new AppError('invalid_credentials', 'x').status).toBe(401);
    expect(new AppError('invalid_credentials', 'x', { status: 403 }).status).toBe(403);
  });
});

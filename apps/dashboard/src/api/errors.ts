import { HashwatchError } from './client';

/** What a form shows for a failed request: a message next to the field the API named, or one for the whole form. */
export interface FormProblem {
  field: string | undefined;
  message: string;
}

const FRIENDLY: Partial<Record<string, string>> = {
  invalid_credentials: 'The email or password is wrong.',
  invalid_two_factor_code: 'That code is wrong or already used. Wait for the next one and try again.',
  two_factor_required: 'Enter the code from your authenticator app.',
  subscription_inactive: 'Your subscription is not active. See Billing.',
  csrf_failed: 'Your session changed in another tab. Reload the page and try again.',
  unauthorized: 'You were signed out. Sign in again.',
  internal_error: 'Something went wrong on our side. Try again in a moment.',
  network_error: 'The service cannot be reached. Check your connection and try again.',
};

/** Minutes and seconds, as a person reads a wait. */
function wait(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** The text a person sees for `error`: the API's message where it says what to fix, a plain sentence otherwise. */
export function describeError(error: unknown): string {
  if (!(error instanceof HashwatchError)) return error instanceof Error ? error.message : String(error);
  if (error.code === 'rate_limited') {
    return error.retryAfterSeconds ? `Too many attempts. Try again in ${wait(error.retryAfterSeconds)}.` : 'Too many attempts. Try again shortly.';
  }
  if (error.code === 'plan_limit_reached') return `${error.message}. Delete one, or change your plan in Billing.`;
  return FRIENDLY[error.code] ?? error.message;
}

/**
 * Maps a failed request onto a form: a 400 whose message names a field the form has goes next to that field (the
 * API writes `hashtag: Too small ...`); anything else is a message for the whole form.
 */
export function formProblem(error: unknown, fields: readonly string[]): FormProblem {
  if (error instanceof HashwatchError && error.code === 'invalid_request' && error.field) {
    const field = fields.find((name) => error.field === name || error.field?.startsWith(`${name}.`));
    if (field) return { field, message: error.message.slice(error.message.indexOf(':') + 1).trim() || error.message };
  }
  return { field: undefined, message: describeError(error) };
}

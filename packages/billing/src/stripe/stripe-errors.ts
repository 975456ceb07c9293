import { AppError } from '@hashwatch/errors';
import type { z } from 'zod';

/**
 * A webhook request whose `Stripe-Signature` does not verify with the webhook secret (or is missing, or too old):
 * nothing was read from it or recorded. An `invalid_request` AppError, so the API answers it 400.
 */
export class WebhookSignatureError extends AppError {
  constructor() {
    super('invalid_request', 'the Stripe-Signature header does not verify');
    this.name = 'WebhookSignatureError';
  }
}

/**
 * Stripe sent an object this integration cannot read (a status it does not know, a field missing). For a webhook
 * it propagates, so the endpoint answers 5xx and Stripe retries the event until the code reads it.
 */
export class StripeObjectError extends Error {
  constructor(what: string, issues: readonly z.core.$ZodIssue[]) {
    const first = issues[0];
    super(`Stripe sent a ${what} this integration cannot read: ${first ? `${first.path.join('.') || '(root)'}: ${first.message}` : 'invalid'}`);
    this.name = 'StripeObjectError';
  }
}

/** `value` read through `schema`, or a {@link StripeObjectError} naming the object and the first problem (never the value). */
export function parseStripeObject<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new StripeObjectError(what, parsed.error.issues);
  return parsed.data;
}

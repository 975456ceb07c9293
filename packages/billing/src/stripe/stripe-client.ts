import Stripe from 'stripe';
import { BillingUnavailableError } from '../provider';
import { StripeObjectError } from './stripe-errors';

export interface StripeClientOptions {
  /** An origin (`http://127.0.0.1:4567`), no path: the SDK's `protocol`, `host` and `port` point at it. */
  apiBaseUrl?: string | undefined;
  timeoutMs: number;
  maxNetworkRetries?: number | undefined;
}

/** The SDK's own connection options for an origin; undefined keeps api.stripe.com. */
function endpointOf(apiBaseUrl: string | undefined): Pick<Stripe.StripeConfig, 'protocol' | 'host' | 'port'> | undefined {
  if (apiBaseUrl === undefined) return undefined;
  const url = new URL(apiBaseUrl);
  return { protocol: url.protocol === 'http:' ? 'http' : 'https', host: url.hostname, port: url.port || (url.protocol === 'http:' ? 80 : 443) };
}

/**
 * The official SDK on its pinned API version (no `apiVersion` given: the objects this package reads are the
 * shapes of that version). It retries connection failures, 409s and 5xx itself, with an idempotency key on POSTs.
 */
export function createStripeClient(secretKey: string, options: StripeClientOptions): Stripe {
  return new Stripe(secretKey, {
    ...endpointOf(options.apiBaseUrl),
    timeout: options.timeoutMs,
    ...(options.maxNetworkRetries === undefined ? {} : { maxNetworkRetries: options.maxNetworkRetries }),
    telemetry: false,
    appInfo: { name: 'Hashwatch' },
  });
}

export function isStripeError(error: unknown): error is Stripe.errors.StripeError {
  return error instanceof Stripe.errors.StripeError;
}

/** Stripe's answer for an id it does not know (or, for a cancel, a subscription already canceled). */
export function isResourceMissing(error: unknown): boolean {
  return isStripeError(error) && error.code === 'resource_missing';
}

/**
 * What went wrong in words safe to log and show: Stripe's error type, code, status and request id. Stripe's own
 * message is left out: for a refused key it quotes part of the key.
 */
export function describeStripeFailure(error: unknown): string {
  if (error instanceof StripeObjectError) return error.message;
  if (!isStripeError(error)) return error instanceof Error ? error.name : 'unknown error';
  const parts = [error.rawType ?? error.type, error.code, error.statusCode === undefined ? undefined : `HTTP ${error.statusCode}`, error.requestId];
  return parts.filter((part) => part !== undefined && part !== '').join(', ');
}

/** Runs one Stripe call; any failure becomes a {@link BillingUnavailableError} saying what was attempted. */
export async function callStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new BillingUnavailableError(`Stripe could not ${what} (${describeStripeFailure(error)})`);
  }
}

import type pg from 'pg';
import { z } from 'zod';
import { PLAN_IDS, type PlanId } from '@hashwatch/plans';
import type { BillingProvider } from '../provider';
import { createStripeClient } from './stripe-client';
import { createStripeProvider } from './stripe-provider';
import { createWebhookHandler, type HandledWebhook } from './stripe-webhook';

export interface StripeBillingOptions {
  /** `sk_…` (or a restricted `rk_…` key allowed Checkout, Billing Portal and Subscriptions). */
  secretKey: string;
  /** The webhook endpoint's signing secret, `whsec_…`. */
  webhookSecret: string;
  /** The Stripe price id of each plan; distinct, since events are mapped back to a plan through them. */
  prices: Record<PlanId, string>;
  /** An origin such as `http://127.0.0.1:4567`, no path: the SDK talks to it instead of api.stripe.com (tests). */
  apiBaseUrl?: string;
  /** The database the webhook records events in and updates accounts in (`Database.pool` of @hashwatch/db). */
  pool: pg.Pool;
  now?: () => Date;
  /** How long one Stripe request may take. Default 20 s. */
  timeoutMs?: number;
  /** The SDK's retries of failed requests (with backoff). Default the SDK's (2). */
  maxNetworkRetries?: number;
}

export interface StripeBilling {
  provider: BillingProvider;
  /**
   * Handles one request to the webhook endpoint, given its raw body (exactly the bytes received) and its
   * `Stripe-Signature` header. Throws `WebhookSignatureError` (answer 400) when the signature does not verify; any
   * other error means the event was not handled (answer 5xx, so Stripe retries).
   */
  handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<HandledWebhook>;
}

const origin = z
  .url({ protocol: /^https?$/ })
  .refine((value) => {
    const url = new URL(value);
    return url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  }, 'must be an origin such as http://127.0.0.1:4567, without a path, query or credentials');

const optionsSchema = z.object({
  secretKey: z.string().regex(/^(sk|rk)_/, 'must be a Stripe secret key (sk_… or rk_…)'),
  webhookSecret: z.string().regex(/^whsec_/, 'must be a webhook signing secret (whsec_…)'),
  prices: z
    .object(Object.fromEntries(PLAN_IDS.map((plan) => [plan, z.string().min(1)])) as Record<PlanId, z.ZodString>)
    .refine((prices) => new Set(Object.values(prices)).size === PLAN_IDS.length, 'each plan needs its own price'),
  apiBaseUrl: origin.optional(),
  timeoutMs: z.number().int().min(1).optional(),
  maxNetworkRetries: z.number().int().min(0).max(10).optional(),
});

/** Thrown by {@link createStripeBilling} for options that cannot work; names the option, never its value. */
export class StripeBillingConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StripeBillingConfigError';
  }
}

function parseOptions(options: StripeBillingOptions): z.infer<typeof optionsSchema> {
  const parsed = optionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new StripeBillingConfigError(`Stripe billing option ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`);
}

/**
 * The Stripe billing provider and its webhook handler, on one SDK client. Construct it once at boot (the gateway's
 * composition root) and share it.
 */
export function createStripeBilling(options: StripeBillingOptions): StripeBilling {
  const config = parseOptions(options);
  const stripe = createStripeClient(config.secretKey, { apiBaseUrl: config.apiBaseUrl, timeoutMs: config.timeoutMs ?? 20_000, maxNetworkRetries: config.maxNetworkRetries });
  const planOfPrice = new Map(PLAN_IDS.map((plan) => [config.prices[plan], plan] as const));
  return {
    provider: createStripeProvider(stripe, config.prices),
    handleWebhook: createWebhookHandler({ stripe, webhookSecret: config.webhookSecret, pool: options.pool, planOfPrice, now: options.now ?? (() => new Date()) }),
  };
}

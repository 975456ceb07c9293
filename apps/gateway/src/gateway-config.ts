import { z } from 'zod';
import { configSchema, envFlag, requiredSecretsKey } from '@hashwatch/config';
import { mailConfig } from '@hashwatch/mail';

// docker-compose passes an unset variable as an empty string: empty means unset.
const optionalText = z.preprocess((value) => (value === '' ? undefined : value), z.string().optional());

const STRIPE_REQUIRED = ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_PRICE_STARTER', 'STRIPE_PRICE_PRO', 'STRIPE_PRICE_BUSINESS'] as const;

/**
 * The gateway's environment: the shared variables with SECRETS_KEY required (it seals TOTP secrets and signs feed
 * cursors and CSRF tokens), and checkout, billing, mail (password reset) and proxy settings.
 */
export const gatewayConfigSchema = configSchema
  .extend({
    ...mailConfig,
    SECRETS_KEY: requiredSecretsKey,
    /** The origin of the links we hand out: checkout pages, password-reset links, the portal's way back. */
    PUBLIC_URL: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://watch.example.com' })
      .default('http://localhost:3000')
      .describe("The gateway's public origin: the links it hands out (checkout pages, password-reset links, the billing portal's way back) and those in mail."),
    /** Proxies in front of the gateway that append to X-Forwarded-For; 0 trusts none. */
    TRUST_PROXY: z
      .coerce.number()
      .int()
      .min(0)
      .max(10)
      .default(0)
      .describe("How many proxies in front of the gateway append to `X-Forwarded-For`; set it behind a load balancer, or every client shares the balancer's address and its per-address limits."),
    BILLING_PROVIDER: z
      .enum(['manual', 'stripe'])
      .default('manual')
      .describe("`manual` (an operator activates with `admin account:subscription`) or `stripe`."),
    BILLING_AUTO_ACTIVATE: envFlag
      .default(false)
      .describe("With `manual` billing, `true` activates a checkout at once for 30 days (`npm start` sets it for the demo)."),
    STRIPE_SECRET_KEY: z.string().optional().describe("Required under `stripe`: the API key (`sk_…` or `rk_…`)."),
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .optional()
      .describe("Required under `stripe`: the signing secret (`whsec_…`) of the webhook endpoint `POST /v1/billing/stripe/webhook`."),
    STRIPE_PRICE_STARTER: z.string().optional().describe("Required under `stripe`: the Starter plan's recurring price (`price_…`)."),
    STRIPE_PRICE_PRO: z.string().optional().describe("Required under `stripe`: the Pro plan's recurring price (`price_…`)."),
    STRIPE_PRICE_BUSINESS: z
      .string()
      .optional()
      .describe("Required under `stripe`: the Business plan's recurring price (`price_…`). A subscription moved to another price moves the account to that plan."),
    /** An origin (no path) the Stripe SDK talks to instead of api.stripe.com: a local server in tests. */
    STRIPE_API_BASE_URL: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe("An origin (no path) the Stripe SDK talks to instead of Stripe's, e.g. a local server in tests."),
    /** Both set: the queue console (Bull Board) at /admin/queues, behind HTTP Basic authentication with these. */
    ADMIN_USER: optionalText
      .pipe(z.string().regex(/^[^:]{1,100}$/, 'must be 1 to 100 characters without ":"').optional())
      .describe("With `ADMIN_PASSWORD`, opens the queue console (Bull Board) at `/admin/queues` behind HTTP Basic authentication; 1 to 100 characters without `:`. Unset or empty, nothing is mounted there."),
    /** At least 12 characters: the console can retry and remove any job, and HTTP Basic has nothing else to lean on. */
    ADMIN_PASSWORD: optionalText.pipe(
      z
        .string()
        .min(12, 'must be at least 12 characters: the queue console can retry and remove jobs')
        .max(200, 'must be at most 200 characters')
        .optional(),
    ).describe("The queue console's password, at least 12 characters, or the gateway stops at start-up naming it; set both or neither."),
  })
  .superRefine((config, context) => {
    if ((config.ADMIN_USER === undefined) !== (config.ADMIN_PASSWORD === undefined)) {
      const missing = config.ADMIN_USER === undefined ? 'ADMIN_USER' : 'ADMIN_PASSWORD';
      context.addIssue({ code: 'custom', path: [missing], message: 'is required with ADMIN_USER/ADMIN_PASSWORD: set both to open the queue console, or neither' });
    }
    if (config.BILLING_PROVIDER !== 'stripe') return;
    for (const name of STRIPE_REQUIRED) {
      if (!config[name]) context.addIssue({ code: 'custom', path: [name], message: 'is required when BILLING_PROVIDER=stripe' });
    }
  });

export type GatewayConfig = z.output<typeof gatewayConfigSchema>;

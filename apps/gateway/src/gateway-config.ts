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
    PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://watch.example.com' }).default('http://localhost:3000'),
    /** Proxies in front of the gateway that append to X-Forwarded-For; 0 trusts none. */
    TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
    BILLING_PROVIDER: z.enum(['manual', 'stripe']).default('manual'),
    BILLING_AUTO_ACTIVATE: envFlag.default(false),
    STRIPE_SECRET_KEY: z.string().optional(),
    STRIPE_WEBHOOK_SECRET: z.string().optional(),
    STRIPE_PRICE_STARTER: z.string().optional(),
    STRIPE_PRICE_PRO: z.string().optional(),
    STRIPE_PRICE_BUSINESS: z.string().optional(),
    /** An origin (no path) the Stripe SDK talks to instead of api.stripe.com: a local server in tests. */
    STRIPE_API_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Both set: the queue console (Bull Board) at /admin/queues, behind HTTP Basic authentication with these. */
    ADMIN_USER: optionalText.pipe(z.string().regex(/^[^:]{1,100}$/, 'must be 1 to 100 characters without ":"').optional()),
    /** At least 12 characters: the console can retry and remove any job, and HTTP Basic has nothing else to lean on. */
    ADMIN_PASSWORD: optionalText.pipe(
      z
        .string()
        .min(12, 'must be at least 12 characters: the queue console can retry and remove jobs')
        .max(200, 'must be at most 200 characters')
        .optional(),
    ),
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

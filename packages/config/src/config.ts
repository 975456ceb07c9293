import { z } from 'zod';

const booleanString = z
  .enum(['true', 'false', '1', '0', ''])
  .transform((value) => value === 'true' || value === '1');

const secretsKey = z
  .string()
  .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 random bytes, base64-encoded');

/** Every environment variable the suite reads (CONTRACT section 2), parsed once at boot. */
export const configSchema = z.object({
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgresql://postgres@127.0.0.1:5432/hashwatch'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')
    .default('hw'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  X_API_BASE_URL: z.url().default('https://api.x.com'),
  X_BEARER_TOKEN: z.string().min(1).optional(),
  X_USER_TOKEN: z.string().min(1).optional(),
  X_QUERY_MAX_LENGTH: z.coerce.number().int().min(64).max(4096).default(512),
  TELEGRAM_API_BASE_URL: z.url().default('https://api.telegram.org'),
  SECRETS_KEY: secretsKey.optional(),
  /** A former SECRETS_KEY, only ever read with, while `secrets:reseal` moves every secret to SECRETS_KEY. */
  SECRETS_KEY_PREVIOUS: secretsKey.optional(),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: booleanString.default(false),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']).default('info'),
});

export type Config = z.infer<typeof configSchema>;

/** Thrown when the environment does not parse; the message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(`invalid environment: ${issues.map((issue) => `${issue.variable} ${issue.message}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment. Empty strings count as unset so `FOO=` in a .env file falls back to the default.
 * Throws {@link ConfigError} naming each bad variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') present[key] = value;
  }
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? '?'), message: issue.message })),
    );
  }
  return parsed.data;
}

import { z } from 'zod';

const booleanString = z
  .enum(['true', 'false', '1', '0', ''])
  .transform((value) => value === 'true' || value === '1');

const secretsKey = z
  .string()
  .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 random bytes, base64-encoded');

/** An environment boolean: `true`/`1` or `false`/`0`. */
export const envFlag = booleanString;

/** A TCP port from the environment (0 picks a free one). */
export const envPort = z.coerce.number().int().min(0).max(65535);

/**
 * `SECRETS_KEY` as an app that holds sealed secrets needs it: required, so such an app stops at start-up
 * naming it. Use as `configSchema.extend({ SECRETS_KEY: requiredSecretsKey })`.
 */
export const requiredSecretsKey = z
  .string({ error: 'is required: 32 random bytes, base64 (it seals bot tokens, signing secrets and TOTP secrets)' })
  .pipe(secretsKey);

/** One node of a Redis Cluster, as ioredis's `Cluster` takes it. */
export interface RedisClusterNode {
  host: string;
  port: number;
}

const clusterNode = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, 'must be a comma-separated list of host:port (e.g. 10.0.0.1:6379,10.0.0.2:6379)')
  .transform((entry): RedisClusterNode => {
    const at = entry.lastIndexOf(':');
    return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
  })
  .refine((node) => node.port >= 1 && node.port <= 65535, 'has a port outside 1-65535');

/**
 * `REDIS_CLUSTER_NODES`: `host:port,host:port,…`, some masters of a Redis Cluster (ioredis finds the rest).
 * When it is set the suite runs on that cluster and `REDIS_URL` is ignored.
 */
export const redisClusterNodes = z
  .string()
  .transform((list) => list.split(','))
  .pipe(z.array(clusterNode).min(1, 'must name at least one host:port'));

/** How to sign in to every node of a cluster: an ACL user (or the default one) with its password, over TLS or not. */
export interface RedisClusterAuth {
  readonly username?: string;
  readonly password?: string;
  readonly tls?: boolean;
}

/**
 * Where the suite's Redis is: one server (`REDIS_URL`, which carries its own user, password and `rediss://`) or a
 * cluster (`REDIS_CLUSTER_NODES`, which wins, signed in to with REDIS_CLUSTER_USERNAME/PASSWORD, over TLS with
 * REDIS_CLUSTER_TLS).
 */
export type RedisTarget = string | ({ readonly clusterNodes: readonly RedisClusterNode[] } & RedisClusterAuth);

/** The Redis a config points at: the cluster when `REDIS_CLUSTER_NODES` is set, else `REDIS_URL`. */
export function redisTargetOf(config: {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: readonly RedisClusterNode[] | undefined;
  REDIS_CLUSTER_USERNAME?: string | undefined;
  REDIS_CLUSTER_PASSWORD?: string | undefined;
  REDIS_CLUSTER_TLS?: boolean | undefined;
}): RedisTarget {
  if (!config.REDIS_CLUSTER_NODES) return config.REDIS_URL;
  return {
    clusterNodes: config.REDIS_CLUSTER_NODES,
    ...(config.REDIS_CLUSTER_USERNAME ? { username: config.REDIS_CLUSTER_USERNAME } : {}),
    ...(config.REDIS_CLUSTER_PASSWORD ? { password: config.REDIS_CLUSTER_PASSWORD } : {}),
    ...(config.REDIS_CLUSTER_TLS ? { tls: true } : {}),
  };
}

/**
 * Every environment variable the suite shares, parsed once at boot. Apps extend it with their own. Each field's
 * `.describe()` text is its entry in docs/CONFIGURATION.md (`npm run docs:config`).
 */
export const configSchema = z.object({
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/ })
    .default('postgresql://postgres@127.0.0.1:5432/hashwatch')
    .describe("PostgreSQL, directly or through PgBouncer in transaction mode."),
  /**
   * PostgreSQL directly, for what needs a session of its own (session advisory locks, migrations); default
   * DATABASE_URL. Set whenever DATABASE_URL points at a transaction pooler (PgBouncer): then no statement is
   * prepared by name on DATABASE_URL's connections.
   */
  DATABASE_DIRECT_URL: z
    .url({ protocol: /^postgres(ql)?$/ })
    .optional()
    .describe("PostgreSQL directly (default: `DATABASE_URL`), for whatever needs a session of its own: advisory locks held across statements, `pg_locks` claims, migrations, leases. Set it whenever `DATABASE_URL` points at a transaction pooler (docs/OPERATIONS.md, PgBouncer)."),
  REDIS_URL: z
    .url({ protocol: /^rediss?$/ })
    .default('redis://127.0.0.1:6379')
    .describe("Redis (queues, rate limits, caches), with `maxmemory-policy noeviction`. Ignored when `REDIS_CLUSTER_NODES` is set."),
  REDIS_CLUSTER_NODES: redisClusterNodes
    .optional()
    .describe("`host:port,host:port,…`: some masters of a Redis Cluster; when set the suite runs on that cluster and `REDIS_URL` is ignored (docs/OPERATIONS.md, Redis Cluster)."),
  /** The cluster's ACL user and password (the same on every node); empty means none. */
  REDIS_CLUSTER_USERNAME: z.string().max(200).optional().describe("The ACL user every cluster node takes; none means the default user."),
  REDIS_CLUSTER_PASSWORD: z.string().max(500).optional().describe("The password every cluster node takes (`requirepass`, or the ACL user's)."),
  REDIS_CLUSTER_TLS: booleanString.default(false).describe("`true`: the cluster's nodes speak TLS (a managed cluster's in-transit encryption)."),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')
    .default('hw')
    .describe("Prefix of every Redis key the suite writes; two suites with different prefixes on one Redis never see each other's jobs, counters or caches."),
  PORT: envPort.default(3000).describe("The gateway's HTTP port."),
  HEALTH_PORT: envPort
    .optional()
    .describe("A worker's port for `/healthz`, `/readyz` and `/metrics`; by default 4001 for the scanner, 4002 for the engagement poller, 4003 for the notifier."),
  /**
   * When set, GET /metrics (the gateway's port and the workers' HEALTH_PORT) needs `Authorization: Bearer <token>`;
   * unset, /metrics stays open as CONTRACT 7's scrapers expect.
   */
  METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{16,500}$/, 'must be 16 to 500 printable characters without spaces')
    .optional()
    .describe("When set (16 to 500 printable characters, no spaces), `GET /metrics` on the gateway's `PORT` and the workers' `HEALTH_PORT` needs `Authorization: Bearer <METRICS_TOKEN>` and answers 401 otherwise; `/healthz` and `/readyz` stay open. Unset, `/metrics` is open."),
  X_API_BASE_URL: z.url().default('https://api.x.com').describe("Base of X API v2 (`/2/...` paths are appended)."),
  X_BEARER_TOKEN: z.string().min(1).optional().describe("The app bearer token for X API v2."),
  X_USER_TOKEN: z
    .string()
    .min(1)
    .optional()
    .describe("An optional user-context token: X serves liking users only to such a token. Without it like counts stay real, but likers are not sampled and no like alerts are sent."),
  X_QUERY_MAX_LENGTH: z.coerce.number().int().min(64).max(4096).default(512).describe("The longest search query your X plan accepts (4096 on Enterprise)."),
  TELEGRAM_API_BASE_URL: z.url().default('https://api.telegram.org').describe("Base of the Telegram Bot API."),
  SECRETS_KEY: secretsKey
    .optional()
    .describe("32 random bytes, base64 (`openssl rand -base64 32`; `npm start` generates one for the demo): seals bot tokens, webhook signing secrets and TOTP secrets at rest (AES-256-GCM). The gateway and the notifier stop at start-up, naming it, when it cannot open the secrets already stored."),
  /** A former SECRETS_KEY, only ever read with, while `secrets:reseal` moves every secret to SECRETS_KEY. */
  SECRETS_KEY_PREVIOUS: secretsKey
    .optional()
    .describe("A former `SECRETS_KEY`, still accepted for reading while `npm run admin -- secrets:reseal` re-seals every secret with the current one."),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: booleanString
    .default(false)
    .describe("`true` lets alerts reach loopback and private addresses; for local development and tests only."),
  /**
   * An item detected more than this long after its posted_at (catch-up after an outage) goes to json channels
   * only, flagged `late: true`; chat platforms (Discord, Slack, Telegram) do not get it.
   */
  ALERT_MAX_AGE_SECONDS: z
    .coerce.number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .default(900)
    .describe("Notifier: an item detected more than this many seconds after its `posted_at` is still stored and sent to json channels, with `late: true`, but not to Discord, Slack or Telegram; its deliveries there are logged `skipped`. Give every notifier replica the same value."),
  LOG_LEVEL: z
    .enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'])
    .default('info')
    .describe("The winston level; logs are JSON lines."),
});

export type Config = z.infer<typeof configSchema>;

/** A schema an app reads its environment with: the shared one, extended (or tightened) by `configSchema.extend`. */
export type AppConfigSchema = z.ZodObject<{ [Key in keyof typeof configSchema.shape]: z.ZodType } & z.ZodRawShape>;

/** Thrown when the environment does not parse; the message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(`invalid environment: ${issues.map((issue) => `${issue.variable} ${issue.message}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment with `schema` (the shared {@link configSchema} unless an app extends it). Empty
 * strings count as unset, so `FOO=` in a .env file falls back to the default. Throws {@link ConfigError}
 * naming each bad variable.
 */
export function loadConfig<Schema extends AppConfigSchema = typeof configSchema>(
  schema?: Schema,
  env: Record<string, string | undefined> = process.env,
): z.output<Schema> {
  const effective = (schema ?? configSchema) as Schema;
  const present: Record<string, string> = {};
  for (const key of Object.keys(effective.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') present[key] = value;
  }
  const parsed = effective.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? '?'), message: issue.message })),
    );
  }
  return parsed.data;
}

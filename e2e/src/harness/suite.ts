import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Cluster, Redis } from 'ioredis';
import pg from 'pg';
import { z } from 'zod';
import { type AppProcess, createQueuePrefix, deletePrefixKeys, freePort, PortTakenError } from '@hashwatch/testing';
import { runAdmin } from './admin-cli';
import { startApp, type AppName } from './apps';
import { GatewayClient } from './gateway-client';
import { createRunDatabase, type RunDatabase } from './run-database';
import { XSimClient } from './x-sim-client';

// The servers `npm test` made sure answer: DATABASE_URL's server and REDIS_URL, else the defaults.
const SHARED_POSTGRES = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const SHARED_REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// Set when `npm test` runs the scenarios on its Redis Cluster: then every app runs on it, as REDIS_URL is ignored.
const SHARED_CLUSTER = process.env.REDIS_CLUSTER_NODES || undefined;
const APP_TOKEN = 'e2e-app-token';
const USER_TOKEN = 'e2e-user-token';

export type WorkerName = 'scanner' | 'engagement-poller' | 'notifier';

export interface SuiteOptions {
  /** Server of the run's database (its path is replaced); default DATABASE_URL's server. */
  postgresServerUrl?: string;
  /**
   * The run database's URL as the apps reach it (say, through a PgBouncer of the scenario's own): then it is their
   * DATABASE_URL and the direct one their DATABASE_DIRECT_URL. Default: the direct URL alone.
   */
  databaseVia?: (directUrl: string) => string;
  /** Default REDIS_URL; every key is under this run's own QUEUE_PREFIX. */
  redisUrl?: string;
  /**
   * REDIS_CLUSTER_NODES (`host:port,…`): every app runs on that Redis Cluster instead (REDIS_URL is ignored).
   * Default the REDIS_CLUSTER_NODES of the test run, unless `redisUrl` names a server of the scenario's own.
   */
  redisClusterNodes?: string;
  /** Replicas started at once; default one of each. */
  replicas?: Partial<Record<WorkerName, number>>;
  /** x-sim's rate-limit window (X_SIM_RATE_WINDOW_SECONDS); default 900 as X's. */
  xRateWindowSeconds?: number;
  /** Business plan cadences set with the admin CLI before the account exists; default 1 s and 2 s. */
  scanIntervalSeconds?: number;
  engagementIntervalSeconds?: number;
  /** Extra environment for every app, e.g. NOTIFIER_* tuning. */
  env?: Record<string, string>;
  /** Extra environment for the gateway alone, given its own origin (`http://127.0.0.1:<port>`), e.g. PUBLIC_URL. */
  gatewayEnv?: (origin: string) => Record<string, string>;
}

export interface FeedItemRow {
  id: string;
  x_post_id: string;
  type: string;
  parent_id: string | null;
  author: string;
  kind: string | null;
}

const accountSchema = z.object({ account_id: z.string(), api_key: z.string() });

/**
 * One whole Hashwatch as users run it, for one scenario: a database and QUEUE_PREFIX of its own, the x-sim,
 * the gateway and the three workers as separate OS processes from their builds, and an account on a
 * business plan with short cadences. `stop` ends every process it started (SIGTERM, then SIGKILL), deletes
 * its own prefix's keys and drops its own database, and nothing else.
 */
export class Suite {
  readonly apps: AppProcess<AppName>[] = [];
  private counters = new Map<string, number>();
  private startGateway: () => Promise<AppProcess<AppName>> = () => Promise.reject(new Error('the suite has not started'));
  gateway!: GatewayClient;
  xsim!: XSimClient;
  database!: RunDatabase;
  pool!: pg.Pool;
  accountId = '';

  private constructor(
    readonly logDir: string,
    readonly queuePrefix: string,
    readonly redisUrl: string,
    readonly redisClusterNodes: string | undefined,
    private readonly baseEnv: Record<string, string>,
  ) {}

  static async start(options: SuiteOptions = {}): Promise<Suite> {
    const logDir = mkdtempSync(path.join(os.tmpdir(), 'hw-e2e-'));
    const redisUrl = options.redisUrl ?? SHARED_REDIS;
    const queuePrefix = createQueuePrefix();
    const clusterNodes = options.redisClusterNodes ?? (options.redisUrl === undefined ? SHARED_CLUSTER : undefined);
    const suite = new Suite(logDir, queuePrefix, redisUrl, clusterNodes, {
      REDIS_URL: redisUrl,
      ...(clusterNodes ? { REDIS_CLUSTER_NODES: clusterNodes } : {}),
      QUEUE_PREFIX: queuePrefix,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      X_BEARER_TOKEN: APP_TOKEN,
      X_USER_TOKEN: USER_TOKEN,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      LOG_LEVEL: 'info',
      // Scenarios scan every second against a simulator that allows it; X's real search budget would slow them
      // (fair shares, apps/scanner/src/sources/fair-shares.ts), so it is off unless a scenario sets it.
      SCANNER_SEARCH_BUDGET: '0',
      ...options.env,
    });
    try {
      await suite.boot(options);
    } catch (error) {
      await suite.stop();
      throw error;
    }
    return suite;
  }

  private async boot(options: SuiteOptions): Promise<void> {
    this.database = await createRunDatabase(options.postgresServerUrl ?? SHARED_POSTGRES);
    this.baseEnv.DATABASE_URL = options.databaseVia ? options.databaseVia(this.database.url) : this.database.url;
    if (options.databaseVia) this.baseEnv.DATABASE_DIRECT_URL = this.database.url;
    this.pool = new pg.Pool({ connectionString: this.database.url, max: 3 });
    this.pool.on('error', () => undefined);

    const scan = options.scanIntervalSeconds ?? 1;
    const engagement = options.engagementIntervalSeconds ?? 2;
    await runAdmin(this.database.url, ['plan:set', '--plan', 'business', '--scan-interval', String(scan), '--engagement-interval', String(engagement)]);
    const account = accountSchema.parse(await runAdmin(this.database.url, ['account:create', '--email', `e2e-${this.queuePrefix}@example.com`, '--plan', 'business']));
    this.accountId = account.account_id;

    const sim = await this.startOnFreePort('x-sim', '/_sim/health', (port) => ({
      X_SIM_PORT: String(port),
      X_SIM_HOST: '127.0.0.1',
      X_SIM_GENERATOR: 'false',
      X_SIM_RATE_WINDOW_SECONDS: String(options.xRateWindowSeconds ?? 900),
    }));
    this.xsim = new XSimClient(`http://127.0.0.1:${sim.port}`);
    this.baseEnv.X_API_BASE_URL = this.xsim.url;

    const gateway = await this.startOnFreePort('gateway', '/readyz', (port) => ({ PORT: String(port), ...options.gatewayEnv?.(`http://127.0.0.1:${port}`) }));
    const gatewayPort = gateway.port;
    const gatewayOrigin = `http://127.0.0.1:${gatewayPort}`;
    this.startGateway = () => this.startOne('gateway', gatewayPort, '/readyz', { PORT: String(gatewayPort), ...options.gatewayEnv?.(gatewayOrigin) });
    this.gateway = new GatewayClient(gatewayOrigin, account.api_key);

    const replicas = { scanner: 1, 'engagement-poller': 1, notifier: 1, ...options.replicas };
    const starts: Promise<AppProcess<AppName>>[] = [];
    for (const worker of ['scanner', 'engagement-poller', 'notifier'] as const) {
      for (let i = 0; i < replicas[worker]; i += 1) starts.push(this.startWorker(worker));
    }
    await Promise.all(starts);
    // plan:set changes the plan, not the accounts' snapshots of it; resync takes this account's fresh snapshot.
    const me = await this.gateway.resyncLimits();
    if (me.scan_interval_seconds !== scan) throw new Error(`resync-limits left scan_interval_seconds at ${me.scan_interval_seconds}, not ${scan}`);
  }

  private async startOne(app: AppName, port: number, readyPath: string, env: Record<string, string>): Promise<AppProcess<AppName>> {
    const n = (this.counters.get(app) ?? 0) + 1;
    this.counters.set(app, n);
    const handle = await startApp({ app, label: `${app}-${n}`, env: { ...this.baseEnv, ...env }, port, readyPath, logDir: this.logDir });
    this.apps.push(handle);
    return handle;
  }

  /** Starts one more replica of a worker on a free HEALTH_PORT and waits for its /readyz. */
  async startWorker(worker: WorkerName, env: Record<string, string> = {}): Promise<AppProcess<AppName>> {
    return this.startOnFreePort(worker, '/readyz', (port) => ({ HEALTH_PORT: String(port), ...env }));
  }

  /** Starts an app on a free port; when another process took the port first (PortTakenError), on another one. */
  private async startOnFreePort(app: AppName, readyPath: string, envFor: (port: number) => Record<string, string>): Promise<AppProcess<AppName>> {
    for (let attempt = 1; ; attempt += 1) {
      const port = await freePort();
      try {
        return await this.startOne(app, port, readyPath, envFor(port));
      } catch (error) {
        if (!(error instanceof PortTakenError) || attempt >= 3) throw error;
      }
    }
  }

  /**
   * A crash of the gateway and its supervisor's restart: SIGKILL, then the same app on the same port and
   * environment. `whileDown` runs between the two (say, X publishing a post the scanner stores meanwhile).
   */
  async crashGateway(whileDown: () => Promise<void> = async () => undefined): Promise<void> {
    for (const handle of this.running('gateway')) {
      handle.signal('SIGKILL');
      await handle.exited;
    }
    await whileDown();
    await this.startGateway();
  }

  running(app: AppName): AppProcess<AppName>[] {
    return this.apps.filter((handle) => handle.app === app && handle.isRunning());
  }

  /** The feed items of the run's account, oldest first; engagement items name their parent item and kind. */
  async feedItems(): Promise<FeedItemRow[]> {
    const { rows } = await this.pool.query<FeedItemRow>(
      `SELECT id, x_post_id, type::text AS type, parent_id, author, kind::text AS kind
         FROM feed_items WHERE user_id = $1 ORDER BY detected_at, id`,
      [this.accountId],
    );
    return rows;
  }

  /** Every process still running gets SIGTERM (SIGKILL after 10 s); then the prefix's keys and the database go. */
  async stop(): Promise<void> {
    await Promise.allSettled(this.apps.map((handle) => handle.stop(10_000)));
    if (this.pool) await this.pool.end().catch(() => undefined);
    const redis = this.redisClusterNodes
      ? new Cluster(this.redisClusterNodes.split(',').map((node) => ({ host: node.split(':')[0], port: Number(node.split(':')[1]) })), {
          lazyConnect: true,
          redisOptions: { maxRetriesPerRequest: 1 },
        })
      : new Redis(this.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      await deletePrefixKeys(redis, this.queuePrefix);
    } catch {
      // a private Redis already stopped takes the keys with it
    } finally {
      redis.disconnect();
    }
    if (this.database) await this.database.drop().catch(() => undefined);
    // HW_E2E_KEEP_LOGS=1 keeps every app's log for a post-mortem; the path is printed.
    if (process.env.HW_E2E_KEEP_LOGS === '1') process.stdout.write(`e2e logs kept in ${this.logDir}\n`);
    else rmSync(this.logDir, { recursive: true, force: true });
  }
}

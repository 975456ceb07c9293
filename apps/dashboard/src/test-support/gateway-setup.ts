/// <reference types="node" />
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { db, entryPoint, ioredis, pg, REPO_ROOT, testing, type AppProcess } from './server-tools';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The gateway the tests' fetch talks to, e.g. http://127.0.0.1:41234. */
    gatewayUrl: string;
    /** The run's own database, for the admin CLI and the feed writer. */
    databaseUrl: string;
  }
}

/** A database of the run's own (`hw_dash_<random>`), migrated and seeded with the plans as `npm run db:migrate` does. */
async function createRunDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `hw_dash_${randomBytes(5).toString('hex')}`;
  const { Client, Pool } = pg();
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: testing().adminUrl() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const drop = () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  const url = testing().databaseUrlFor(name);
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    await db().migrate(pool);
    await db().seedPlans(pool);
  } catch (error) {
    await drop().catch(() => undefined);
    throw error;
  } finally {
    await pool.end();
  }
  return { name, url, drop };
}

async function deleteKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new (ioredis().Redis)(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await testing().deletePrefixKeys(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

/**
 * Vitest global setup of the gateway project: the built gateway as its own process, on a free port, against a
 * database and a QUEUE_PREFIX of this run's own (DATABASE_URL's server and REDIS_URL, as `npm test` sets them,
 * else the local defaults). The teardown stops it, deletes the prefix's keys and drops the database, nothing else.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const queuePrefix = testing().createQueuePrefix();
  const database = await createRunDatabase();
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'hw-dashboard-'));
  const cleanUp = async () => {
    await deleteKeys(redisUrl, queuePrefix).catch(() => undefined);
    await database.drop().catch(() => undefined);
    rmSync(logDir, { recursive: true, force: true });
  };
  const port = await testing().freePort();
  let gateway: AppProcess;
  try {
    gateway = await testing().startAppProcess({
      app: 'gateway', label: 'gateway', entry: entryPoint('gateway'), cwd: REPO_ROOT, port, readyPath: '/readyz', logDir,
      env: {
        PORT: String(port), DATABASE_URL: database.url, REDIS_URL: redisUrl, QUEUE_PREFIX: queuePrefix,
        SECRETS_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'warn',
      },
    });
  } catch (error) {
    await cleanUp();
    throw new Error(`the gateway (${entryPoint('gateway')}) did not get ready; build it first (npx turbo run build). ${(error as Error).message}`, { cause: error });
  }

  const teardown = async () => {
    await gateway.stop();
    await cleanUp();
  };

  const gatewayUrl = `http://127.0.0.1:${port}`;
  project.provide('gatewayUrl', gatewayUrl);
  project.provide('databaseUrl', database.url);
  return teardown;
}

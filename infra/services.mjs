// PostgreSQL and Redis for `npm start` and `npm test`, in this order of preference:
//   1. the servers at DATABASE_URL / REDIS_URL when they answer a real protocol handshake;
//   2. private instances started from locally installed binaries, with their data under .data/;
//   3. `docker compose up -d` of the postgres / redis services when a Docker engine runs;
//   4. otherwise one line saying what to install.
// Only Node built-ins: this runs before `npm install` may have happened.
import { startWithDocker } from './docker-services.mjs';
import { DevError } from './errors.mjs';
import { localTools } from './local-tools.mjs';
import { redactUrl, say } from './output.mjs';
import { startPrivatePostgres } from './private-postgres.mjs';
import { startPrivateRedis } from './private-redis.mjs';
import { probePostgres, probeRedis } from './service-probes.mjs';
import { DATA_DIR, ROOT } from './workspaces.mjs';

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/hashwatch';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** `url` with the database name of `original` (so a custom DATABASE_URL name is kept). */
function withDatabaseName(url, original) {
  try {
    const name = new URL(original).pathname;
    const target = new URL(url);
    if (name && name !== '/') target.pathname = name;
    return target.toString();
  } catch {
    return url;
  }
}

/** The one line for a machine that can start neither the missing server(s) nor Docker. */
function nothingToStartError({ postgres, redis }) {
  const missing = [
    postgres ? { name: 'PostgreSQL', install: 'PostgreSQL 14+ (initdb, postgres)', variable: 'DATABASE_URL' } : undefined,
    redis ? { name: 'Redis', install: 'Redis 6.2+ (redis-server)', variable: 'REDIS_URL' } : undefined,
  ].filter(Boolean);
  const list = (key) => missing.map((item) => item[key]).join(' and ');
  return new DevError(
    `${list('name')} ${missing.length > 1 ? 'are' : 'is'} not running and cannot be started here: ` +
      `install ${list('install')}, or start a Docker engine, or set ${list('variable')} to a running server`,
  );
}

/**
 * Starts what does not answer: private instances where binaries exist, Docker for the rest. Pushes each
 * stop onto `stops` as soon as it has something to stop; resolves with the URLs to use.
 */
async function startMissing({ root, dataDir, env, log, tools, pg, redis, urls, stops }) {
  const pgBinaries = pg.ok ? undefined : tools.findPostgresBinaries();
  const redisServer = redis.ok ? undefined : tools.findRedisServer();
  const dockerNeeded = (!pg.ok && !pgBinaries) || (!redis.ok && !redisServer);
  if (dockerNeeded && !tools.dockerRuns()) {
    throw nothingToStartError({ postgres: !pg.ok && !pgBinaries, redis: !redis.ok && !redisServer });
  }
  let { databaseUrl, redisUrl } = urls;
  const dockerServices = [];
  if (!pg.ok) {
    log(`PostgreSQL: nothing answers at ${redactUrl(databaseUrl)} (${pg.detail})`);
    if (pgBinaries) {
      const instance = await startPrivatePostgres({ dataDir, log, binaries: pgBinaries });
      stops.push(instance.stop);
      databaseUrl = withDatabaseName(instance.url, databaseUrl);
    } else dockerServices.push('postgres');
  }
  if (!redis.ok) {
    log(`Redis: nothing answers at ${redactUrl(redisUrl)} (${redis.detail})`);
    if (redisServer) {
      const instance = await startPrivateRedis({ dataDir, log, redisServer });
      stops.push(instance.stop);
      redisUrl = instance.url;
    } else dockerServices.push('redis');
  }
  if (dockerServices.length > 0) {
    const started = await startWithDocker({ root, services: dockerServices, env, log });
    stops.push(started.stop);
    if (dockerServices.includes('postgres')) databaseUrl = withDatabaseName(started.databaseUrl, databaseUrl);
    if (dockerServices.includes('redis')) redisUrl = started.redisUrl;
  }
  return { databaseUrl, redisUrl };
}

/**
 * Makes sure PostgreSQL and Redis answer. Resolves with the URLs the children must use and a `stop`
 * that stops only what this call started.
 * @param {{root: string, dataDir: string, env?: NodeJS.ProcessEnv, log: (line: string) => void, tools?: typeof localTools}} options
 */
export async function ensureServices({ root, dataDir, env = process.env, log, tools = localTools }) {
  const stops = [];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn();
    stops.length = 0;
  };
  const urls = { databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL, redisUrl: env.REDIS_URL || DEFAULT_REDIS_URL };
  const [pg, redis] = await Promise.all([probePostgres(urls.databaseUrl), probeRedis(urls.redisUrl)]);
  if (redis.refused) {
    throw new DevError(`Redis at ${redactUrl(urls.redisUrl)} answered but refused PING (${redis.detail}): fix the credentials in REDIS_URL`);
  }
  if (pg.ok) log(`PostgreSQL: using ${redactUrl(urls.databaseUrl)}`);
  if (redis.ok) log(`Redis: using ${redactUrl(urls.redisUrl)}`);
  if (pg.ok && redis.ok) return { ...urls, stop };
  try {
    return { ...(await startMissing({ root, dataDir, env, log, tools, pg, redis, urls, stops })), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** ensureServices for a command of this repository: its stop runs with the supervisor's cleanups. */
export async function startServices(supervisor) {
  supervisor.checkInterrupted();
  const result = await ensureServices({ root: ROOT, dataDir: DATA_DIR, env: process.env, log: say });
  supervisor.onCleanup(result.stop);
  supervisor.checkInterrupted();
  return result;
}

// PostgreSQL and Redis for `npm start` and `npm test` (CONTRACT section 1), in this order of preference:
//   1. the servers at DATABASE_URL / REDIS_URL when they answer a real protocol handshake;
//   2. private instances started from locally installed binaries, with their data under .data/;
//   3. `docker compose up -d` of the postgres / redis services when a Docker engine runs;
//   4. otherwise one line saying what to install.
// Only Node built-ins: this runs before `npm install` may have happened.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, chownSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync, rmSync, lstatSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import path from 'node:path';

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/hashwatch';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

// Stable preferred ports keep the private instances' URLs the same from run to run; any free port
// is taken when these are busy.
const PRIVATE_PG_PORT = 54329;
const PRIVATE_REDIS_PORT = 63799;

/** A failure the user can act on: printed as one line, without a stack trace. */
export class DevError extends Error {
  name = 'DevError';
}

/** The URL with any password replaced, safe to print. */
export function redactUrl(value) {
  try {
    const url = new URL(value);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '<unparseable url>';
  }
}

// ---------------------------------------------------------------------------------------------------
// Protocol probes

/** Opens a TCP (or TLS) socket and resolves with it, or rejects after `timeoutMs`. */
function connectSocket({ host, port, secure = false, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const socket = secure
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host })
      : net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

/** Writes `request` and resolves with the bytes received once `isComplete(buffer)` holds. */
async function exchange(socketOptions, request, isComplete) {
  const socket = await connectSocket(socketOptions);
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`incomplete answer from ${socketOptions.host}:${socketOptions.port}`));
    }, socketOptions.timeoutMs);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (isComplete(received)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(received);
      }
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once('close', () => {
      clearTimeout(timer);
      if (isComplete(received)) resolve(received);
      else reject(new Error(`connection closed by ${socketOptions.host}:${socketOptions.port}`));
    });
    socket.write(request);
  });
}

function postgresTarget(databaseUrl) {
  const url = new URL(databaseUrl);
  const hostParam = url.searchParams.get('host');
  return {
    host: decodeURIComponent(url.hostname.replace(/^\[|\]$/g, '')) || hostParam || 'localhost',
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username) || 'postgres',
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres',
  };
}

/**
 * Whether a PostgreSQL server answers at the URL: a v3 StartupMessage must be met by an
 * authentication request ('R') or an error ('E'). "Database does not exist" and password prompts
 * count as answering; "the database system is starting up" (57P03) does not.
 * @returns {Promise<{ok: boolean, detail: string}>}
 */
export async function probePostgres(databaseUrl, timeoutMs = 2000) {
  let target;
  try {
    target = postgresTarget(databaseUrl);
  } catch {
    return { ok: false, detail: 'DATABASE_URL is not a URL' };
  }
  if (target.host.startsWith('/')) {
    // A Unix socket directory: leave the handshake to pg_isready when it is installed.
    const result = spawnSync('pg_isready', ['-d', databaseUrl, '-t', String(Math.ceil(timeoutMs / 1000))], { stdio: 'ignore' });
    return { ok: result.status === 0, detail: result.error ? 'pg_isready is not installed' : 'pg_isready' };
  }
  const body = Buffer.from(`user\0${target.user}\0database\0${target.database}\0\0`);
  const startup = Buffer.alloc(8 + body.length);
  startup.writeInt32BE(startup.length, 0);
  startup.writeInt32BE(196608, 4); // protocol 3.0
  body.copy(startup, 8);
  try {
    const answer = await exchange({ host: target.host, port: target.port, timeoutMs }, startup, (buffer) => {
      if (buffer.length < 5) return false;
      return buffer.length >= 1 + buffer.readInt32BE(1);
    });
    const kind = String.fromCharCode(answer[0]);
    if (kind === 'R') return { ok: true, detail: 'answered' };
    if (kind === 'E') {
      const sqlState = /C([0-9A-Z]{5})\0/.exec(answer.toString('latin1'))?.[1];
      if (sqlState === '57P03') return { ok: false, detail: 'starting up' };
      return { ok: true, detail: `answered with error ${sqlState ?? '?'}` };
    }
    return { ok: false, detail: 'something answered, but not PostgreSQL' };
  } catch (error) {
    return { ok: false, detail: error.message };
  }
}

/** A RESP array command, safe for any argument bytes. */
function respCommand(...args) {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}

/**
 * Whether Redis answers at the URL: PING must get +PONG (after AUTH when the URL has credentials).
 * @returns {Promise<{ok: boolean, detail: string, refused?: boolean}>}
 */
export async function probeRedis(redisUrl, timeoutMs = 2000) {
  let url;
  try {
    url = new URL(redisUrl);
  } catch {
    return { ok: false, detail: 'REDIS_URL is not a URL' };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = Number(url.port || 6379);
  const secure = url.protocol === 'rediss:';
  const password = decodeURIComponent(url.password);
  const username = decodeURIComponent(url.username);
  let request = '';
  let replies = 1;
  if (password) {
    request += username ? respCommand('AUTH', username, password) : respCommand('AUTH', password);
    replies += 1;
  }
  request += respCommand('PING');
  try {
    const answer = await exchange({ host, port, secure, timeoutMs }, request, (buffer) => {
      return (buffer.toString('latin1').match(/\r\n/g) ?? []).length >= replies;
    });
    const lines = answer.toString('latin1').split('\r\n').filter(Boolean);
    if (lines[replies - 1] === '+PONG') return { ok: true, detail: 'answered' };
    const error = lines.find((line) => line.startsWith('-'));
    if (error) return { ok: false, refused: true, detail: error.slice(1) };
    return { ok: false, detail: 'something answered, but not Redis' };
  } catch (error) {
    return { ok: false, detail: error.message };
  }
}

async function waitFor(probe, { timeoutMs, intervalMs = 250, isDead = () => false }) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await probe();
    if (last.ok) return last;
    if (isDead()) return { ok: false, detail: 'the process exited' };
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return last ?? { ok: false, detail: 'timed out' };
}

// ---------------------------------------------------------------------------------------------------
// Ports and processes

function canListen(port, host) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Whether nothing listens on the port, on loopback or on all interfaces. */
export async function isPortFree(port) {
  return (await canListen(port, '127.0.0.1')) && (await canListen(port, undefined));
}

/** `preferred` when it is free, else the next free port above it, else one the kernel picks. */
export async function freePort(preferred, taken = new Set()) {
  for (let port = preferred; port < preferred + 50 && port < 65536; port += 1) {
    if (!taken.has(port) && (await isPortFree(port))) return port;
  }
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

async function waitForExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return !isAlive(pid);
}

function which(command) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

function tail(file, lines = 15) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** uid/gid of an OS user from /etc/passwd, or undefined. */
function osUser(name) {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.split(':')[0] === name);
    if (!line) return undefined;
    const [, , uid, gid] = line.split(':');
    return { name, uid: Number(uid), gid: Number(gid) };
  } catch {
    return undefined;
  }
}

function chownTree(target, uid, gid) {
  const stat = lstatSync(target);
  if (stat.uid !== uid || stat.gid !== gid) chownSync(target, uid, gid);
  if (stat.isDirectory()) for (const entry of readdirSync(target)) chownTree(path.join(target, entry), uid, gid);
}

// ---------------------------------------------------------------------------------------------------
// Instance records: .data/<name>.instance.json = { pid, port, users: [pids of dev.mjs runs using it] }.
// A run that finds a live instance joins it; the last user to leave stops it. An instance whose users
// all died (a killed run) is adopted by the next run.

function readRecord(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function writeRecord(file, record) {
  writeFileSync(file, `${JSON.stringify(record)}\n`);
}

function joinRecord(file, record) {
  const users = (record.users ?? []).filter((pid) => pid !== process.pid && isAlive(pid));
  writeRecord(file, { ...record, users: [...users, process.pid] });
}

/** Removes this run from the record; true when nobody else uses the instance any more. */
function leaveRecord(file) {
  const record = readRecord(file);
  if (!record) return true;
  const users = (record.users ?? []).filter((pid) => pid !== process.pid && isAlive(pid));
  if (users.length > 0) {
    writeRecord(file, { ...record, users });
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Private PostgreSQL

function postgresMajor(postgresBin) {
  const result = spawnSync(postgresBin, ['--version'], { encoding: 'utf8' });
  return /(\d+)(?:\.\d+)?/.exec(result.stdout ?? '')?.[1];
}

/** initdb and postgres from one installation: PATH first, then the usual versioned directories. */
export function findPostgresBinaries() {
  const dirs = [];
  const onPath = which('initdb');
  if (onPath) dirs.push(path.dirname(realpathSync(onPath)), path.dirname(onPath));
  const versioned = (root, pattern) => {
    try {
      return readdirSync(root)
        .map((name) => ({ name, version: Number(pattern.exec(name)?.[1]) }))
        .filter((entry) => entry.version > 0)
        .sort((a, b) => b.version - a.version)
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  };
  for (const name of versioned('/usr/lib/postgresql', /^(\d+)$/)) dirs.push(`/usr/lib/postgresql/${name}/bin`);
  for (const name of versioned('/usr', /^pgsql-(\d+)$/)) dirs.push(`/usr/${name}/bin`);
  for (const prefix of ['/opt/homebrew/opt', '/usr/local/opt']) {
    for (const name of versioned(prefix, /^postgresql@(\d+)$/)) dirs.push(`${prefix}/${name}/bin`);
    dirs.push(`${prefix}/postgresql/bin`);
  }
  dirs.push('/usr/local/pgsql/bin');
  for (const dir of dirs) {
    const initdb = path.join(dir, 'initdb');
    const postgres = path.join(dir, 'postgres');
    if (existsSync(initdb) && existsSync(postgres)) return { initdb, postgres };
  }
  return undefined;
}

/**
 * PostgreSQL refuses to run as root. Under root, run it as the `postgres` OS user (or `nobody`),
 * which must be able to reach the data directory.
 */
function postgresRunAs(dataRoot) {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const user = osUser('postgres') ?? osUser('nobody');
  if (!user) throw new DevError('PostgreSQL cannot run as root and there is no "postgres" or "nobody" OS user to run it as');
  const check = spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(dataRoot)}, 1)`], {
    uid: user.uid,
    gid: user.gid,
    stdio: 'ignore',
  });
  if (check.status !== 0) {
    throw new DevError(
      `PostgreSQL runs as the OS user "${user.name}" (root is refused), who cannot reach ${dataRoot}: ` +
        'make its parent directories traversable (chmod o+x) or point DATABASE_URL at a running server',
    );
  }
  return user;
}

async function startPrivatePostgres({ dataDir, log, binaries }) {
  const pgDir = path.join(dataDir, 'pg');
  const recordFile = path.join(dataDir, 'pg.instance.json');
  const logFile = path.join(dataDir, 'pg.log');
  const user = 'postgres';

  const existing = readRecord(recordFile);
  if (existing && isAlive(existing.pid)) {
    const url = `postgresql://${user}@127.0.0.1:${existing.port}/hashwatch`;
    if ((await probePostgres(url)).ok) {
      joinRecord(recordFile, existing);
      log(`PostgreSQL: reusing the private instance in .data/pg (port ${existing.port})`);
      return { url, stop: () => stopRecorded(recordFile, 'SIGINT', 'PostgreSQL', log) };
    }
  }

  mkdirSync(dataDir, { recursive: true });
  const runAs = postgresRunAs(dataDir);
  const major = postgresMajor(binaries.postgres);
  if (existsSync(path.join(pgDir, 'PG_VERSION'))) {
    const dataMajor = readFileSync(path.join(pgDir, 'PG_VERSION'), 'utf8').trim();
    if (major && dataMajor !== major) {
      throw new DevError(
        `.data/pg holds PostgreSQL ${dataMajor} data but ${binaries.postgres} is version ${major}: ` +
          'remove .data/pg (its data is lost) or install PostgreSQL ' + dataMajor,
      );
    }
  } else {
    rmSync(pgDir, { recursive: true, force: true });
    mkdirSync(pgDir, { recursive: true, mode: 0o700 });
    if (runAs) chownTree(pgDir, runAs.uid, runAs.gid);
    log(`PostgreSQL: creating a private cluster in .data/pg (${binaries.initdb})`);
    const out = openSync(logFile, 'a');
    const init = spawnSync(
      binaries.initdb,
      ['-D', pgDir, '-U', user, '--auth=trust', '--encoding=UTF8', '--locale=C'],
      { stdio: ['ignore', out, out], ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}) },
    );
    closeSync(out);
    if (init.status !== 0) {
      rmSync(pgDir, { recursive: true, force: true });
      throw new DevError(`initdb failed (exit ${init.status ?? init.signal}); see .data/pg.log:\n${tail(logFile)}`);
    }
  }
  if (runAs) chownTree(pgDir, runAs.uid, runAs.gid);

  const port = await freePort(PRIVATE_PG_PORT);
  const out = openSync(logFile, 'a');
  // TCP on loopback only; no Unix socket, so it never collides with a system server's socket directory.
  const child = spawn(
    binaries.postgres,
    ['-D', pgDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    { detached: true, stdio: ['ignore', out, out], ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}) },
  );
  closeSync(out);
  child.unref();
  let exited = false;
  child.once('exit', () => (exited = true));
  child.once('error', () => (exited = true));
  writeRecord(recordFile, { pid: child.pid, port, users: [process.pid] });
  const url = `postgresql://${user}@127.0.0.1:${port}/hashwatch`;
  const ready = await waitFor(() => probePostgres(url), { timeoutMs: 60_000, isDead: () => exited });
  if (!ready.ok) {
    await stopRecorded(recordFile, 'SIGINT', 'PostgreSQL');
    throw new DevError(`the private PostgreSQL did not start (${ready.detail}); see .data/pg.log:\n${tail(logFile)}`);
  }
  log(`PostgreSQL: started a private instance on 127.0.0.1:${port} (data in .data/pg, log in .data/pg.log)`);
  return { url, stop: () => stopRecorded(recordFile, 'SIGINT', 'PostgreSQL', log) };
}

// ---------------------------------------------------------------------------------------------------
// Private Redis

async function startPrivateRedis({ dataDir, log, redisServer }) {
  const redisDir = path.join(dataDir, 'redis');
  const recordFile = path.join(dataDir, 'redis.instance.json');
  const logFile = path.join(dataDir, 'redis.log');

  const existing = readRecord(recordFile);
  if (existing && isAlive(existing.pid)) {
    const url = `redis://127.0.0.1:${existing.port}`;
    if ((await probeRedis(url)).ok) {
      joinRecord(recordFile, existing);
      log(`Redis: reusing the private instance in .data/redis (port ${existing.port})`);
      return { url, stop: () => stopRecorded(recordFile, 'SIGTERM', 'Redis', log) };
    }
  }

  mkdirSync(redisDir, { recursive: true });
  const port = await freePort(PRIVATE_REDIS_PORT);
  const out = openSync(logFile, 'a');
  const child = spawn(
    redisServer,
    [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--appendonly', 'yes',
      '--maxmemory-policy', 'noeviction',
      '--dir', redisDir,
      '--daemonize', 'no',
    ],
    { detached: true, stdio: ['ignore', out, out] },
  );
  closeSync(out);
  child.unref();
  let exited = false;
  child.once('exit', () => (exited = true));
  child.once('error', () => (exited = true));
  writeRecord(recordFile, { pid: child.pid, port, users: [process.pid] });
  const url = `redis://127.0.0.1:${port}`;
  const ready = await waitFor(() => probeRedis(url), { timeoutMs: 30_000, isDead: () => exited });
  if (!ready.ok) {
    await stopRecorded(recordFile, 'SIGTERM', 'Redis');
    throw new DevError(`the private Redis did not start (${ready.detail}); see .data/redis.log:\n${tail(logFile)}`);
  }
  log(`Redis: started a private instance on 127.0.0.1:${port} (data in .data/redis, log in .data/redis.log)`);
  return { url, stop: () => stopRecorded(recordFile, 'SIGTERM', 'Redis', log) };
}

/**
 * Stops a private instance unless another live run still uses it. PostgreSQL takes SIGINT (fast
 * shutdown: it does not wait for clients), Redis SIGTERM (writes its append-only file, then exits).
 */
async function stopRecorded(recordFile, signal, label, log = () => undefined) {
  const record = readRecord(recordFile);
  if (!record) return;
  if (!leaveRecord(recordFile)) {
    log(`${label}: left the private instance running, another run still uses it`);
    return;
  }
  if (isAlive(record.pid)) {
    try {
      process.kill(record.pid, signal);
    } catch {
      // already gone
    }
    if (!(await waitForExit(record.pid, 30_000))) {
      try {
        process.kill(record.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await waitForExit(record.pid, 5_000);
    }
  }
  rmSync(recordFile, { force: true });
  log(`${label}: private instance stopped`);
}

// ---------------------------------------------------------------------------------------------------
// Docker

function dockerRuns() {
  const result = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 });
  return result.status === 0;
}

async function startWithDocker({ root, services, env, log }) {
  log(`starting ${services.join(' and ')} with docker compose`);
  const up = spawnSync('docker', ['compose', 'up', '-d', '--wait', ...services], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (up.status !== 0) throw new DevError(`docker compose up -d ${services.join(' ')} failed (exit ${up.status ?? up.signal})`);
  const password = encodeURIComponent(env.POSTGRES_PASSWORD ?? 'postgres');
  const result = {
    databaseUrl: `postgresql://postgres:${password}@127.0.0.1:${env.POSTGRES_PORT ?? 5432}/hashwatch`,
    redisUrl: `redis://127.0.0.1:${env.REDIS_PORT ?? 6379}`,
    stop: async () => {
      spawnSync('docker', ['compose', 'stop', ...services], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    },
  };
  if (services.includes('postgres')) {
    const ready = await waitFor(() => probePostgres(result.databaseUrl), { timeoutMs: 90_000 });
    if (!ready.ok) throw new DevError(`the postgres container does not answer on ${redactUrl(result.databaseUrl)} (${ready.detail})`);
  }
  if (services.includes('redis')) {
    const ready = await waitFor(() => probeRedis(result.redisUrl), { timeoutMs: 60_000 });
    if (!ready.ok) throw new DevError(`the redis container does not answer on ${result.redisUrl} (${ready.detail})`);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------

/** How to find the local binaries and Docker; tests pass their own. */
export const localTools = {
  findPostgresBinaries,
  findRedisServer: () => which('redis-server'),
  dockerRuns,
};

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
  let databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  let redisUrl = env.REDIS_URL || DEFAULT_REDIS_URL;
  const [pg, redis] = await Promise.all([probePostgres(databaseUrl), probeRedis(redisUrl)]);
  if (redis.refused) {
    throw new DevError(`Redis at ${redactUrl(redisUrl)} answered but refused PING (${redis.detail}): fix the credentials in REDIS_URL`);
  }
  if (pg.ok) log(`PostgreSQL: using ${redactUrl(databaseUrl)}`);
  if (redis.ok) log(`Redis: using ${redactUrl(redisUrl)}`);
  if (pg.ok && redis.ok) return { databaseUrl, redisUrl, stop };

  try {
    const pgBinaries = pg.ok ? undefined : tools.findPostgresBinaries();
    const redisServer = redis.ok ? undefined : tools.findRedisServer();
    const dockerNeeded = (!pg.ok && !pgBinaries) || (!redis.ok && !redisServer);
    const docker = dockerNeeded && tools.dockerRuns();
    if (dockerNeeded && !docker) {
      const missing = [
        !pg.ok && !pgBinaries ? { name: 'PostgreSQL', install: 'PostgreSQL 14+ (initdb, postgres)', variable: 'DATABASE_URL' } : undefined,
        !redis.ok && !redisServer ? { name: 'Redis', install: 'Redis 6.2+ (redis-server)', variable: 'REDIS_URL' } : undefined,
      ].filter(Boolean);
      const list = (key) => missing.map((item) => item[key]).join(' and ');
      throw new DevError(
        `${list('name')} ${missing.length > 1 ? 'are' : 'is'} not running and cannot be started here: ` +
          `install ${list('install')}, or start a Docker engine, or set ${list('variable')} to a running server`,
      );
    }
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
  } catch (error) {
    await stop();
    throw error;
  }
  return { databaseUrl, redisUrl, stop };
}

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

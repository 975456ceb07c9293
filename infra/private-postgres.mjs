// A private PostgreSQL cluster in .data/pg, for machines with PostgreSQL installed but not running.
import { spawnSync } from 'node:child_process';
import { chownSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DevError } from './errors.mjs';
import { freePort } from './ports.mjs';
import { instanceFiles, joinInstance, logTail, startInstance } from './private-instances.mjs';
import { probePostgres } from './service-probes.mjs';

// A stable preferred port keeps the instance's URL the same from run to run; any free port is taken
// when it is busy.
const PREFERRED_PORT = 54329;
const USER = 'postgres';

/** @type {import('./private-instances.mjs').Instance} */
const POSTGRES = {
  name: 'pg',
  label: 'PostgreSQL',
  stopSignal: 'SIGINT',
  urlFor: (port) => `postgresql://${USER}@127.0.0.1:${port}/hashwatch`,
  probe: (url) => probePostgres(url),
};

function postgresMajor(postgresBin) {
  const result = spawnSync(postgresBin, ['--version'], { encoding: 'utf8' });
  return /(\d+)(?:\.\d+)?/.exec(result.stdout ?? '')?.[1];
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

/** Keeps a cluster of the installed major version, or creates one with initdb when there is none. */
function ensureCluster({ dataDir, binaries, runAs, log }) {
  const { dir, logFile } = instanceFiles(dataDir, POSTGRES.name);
  const asUser = runAs ? { uid: runAs.uid, gid: runAs.gid } : {};
  const major = postgresMajor(binaries.postgres);
  if (existsSync(path.join(dir, 'PG_VERSION'))) {
    const dataMajor = readFileSync(path.join(dir, 'PG_VERSION'), 'utf8').trim();
    if (major && dataMajor !== major) {
      throw new DevError(
        `.data/pg holds PostgreSQL ${dataMajor} data but ${binaries.postgres} is version ${major}: ` +
          'remove .data/pg (its data is lost) or install PostgreSQL ' + dataMajor,
      );
    }
    return;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (runAs) chownTree(dir, runAs.uid, runAs.gid);
  log(`PostgreSQL: creating a private cluster in .data/pg (${binaries.initdb})`);
  const out = openSync(logFile, 'a');
  const init = spawnSync(
    binaries.initdb,
    ['-D', dir, '-U', USER, '--auth=trust', '--encoding=UTF8', '--locale=C'],
    { stdio: ['ignore', out, out], ...asUser },
  );
  closeSync(out);
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new DevError(`initdb failed (exit ${init.status ?? init.signal}); see .data/pg.log:\n${logTail(logFile)}`);
  }
}

/** Joins or starts the private PostgreSQL; resolves with its URL (database `hashwatch`) and its stop. */
export async function startPrivatePostgres({ dataDir, log, binaries }) {
  const joined = await joinInstance(POSTGRES, dataDir, log);
  if (joined) return joined;
  mkdirSync(dataDir, { recursive: true });
  const runAs = postgresRunAs(dataDir);
  ensureCluster({ dataDir, binaries, runAs, log });
  const { dir } = instanceFiles(dataDir, POSTGRES.name);
  if (runAs) chownTree(dir, runAs.uid, runAs.gid);
  const port = await freePort(PREFERRED_PORT);
  // TCP on loopback only; no Unix socket, so it never collides with a system server's socket directory.
  const args = ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  const spawnOptions = runAs ? { uid: runAs.uid, gid: runAs.gid } : {};
  return startInstance(POSTGRES, dataDir, { command: binaries.postgres, args, port, spawnOptions, timeoutMs: 60_000 }, log);
}

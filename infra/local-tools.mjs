// What this machine offers to start PostgreSQL and Redis with: installed binaries, or a Docker engine.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

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

/** The entries of `root` whose name matches `pattern` (its group 1 a version), newest version first. */
function versioned(root, pattern) {
  try {
    return readdirSync(root)
      .map((name) => ({ name, version: Number(pattern.exec(name)?.[1]) }))
      .filter((entry) => entry.version > 0)
      .sort((a, b) => b.version - a.version)
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** Where PostgreSQL's binaries live: PATH first, then the usual directories of Debian, Red Hat and Homebrew. */
function postgresBinDirs() {
  const dirs = [];
  const onPath = which('initdb');
  if (onPath) dirs.push(path.dirname(realpathSync(onPath)), path.dirname(onPath));
  for (const name of versioned('/usr/lib/postgresql', /^(\d+)$/)) dirs.push(`/usr/lib/postgresql/${name}/bin`);
  for (const name of versioned('/usr', /^pgsql-(\d+)$/)) dirs.push(`/usr/${name}/bin`);
  for (const prefix of ['/opt/homebrew/opt', '/usr/local/opt']) {
    for (const name of versioned(prefix, /^postgresql@(\d+)$/)) dirs.push(`${prefix}/${name}/bin`);
    dirs.push(`${prefix}/postgresql/bin`);
  }
  dirs.push('/usr/local/pgsql/bin');
  return dirs;
}

/** initdb and postgres from one installation, or undefined. */
export function findPostgresBinaries() {
  for (const dir of postgresBinDirs()) {
    const initdb = path.join(dir, 'initdb');
    const postgres = path.join(dir, 'postgres');
    if (existsSync(initdb) && existsSync(postgres)) return { initdb, postgres };
  }
  return undefined;
}

function dockerRuns() {
  const result = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 });
  return result.status === 0;
}

/** How to find the local binaries and Docker; tests pass their own. */
export const localTools = {
  findPostgresBinaries,
  findRedisServer: () => which('redis-server'),
  dockerRuns,
};

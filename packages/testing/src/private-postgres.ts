import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { childRegistry } from './child-registry';
import { freePort } from './free-port';
import { postgresAnswers, unprivilegedUser } from './postgres-server';
import { waitFor } from './wait-for';

/** initdb and postgres from one installation: PATH first, then /usr/lib/postgresql/<newest>/bin. */
function findBinaries(): { initdb: string; postgres: string } {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  try {
    const versions = readdirSync('/usr/lib/postgresql').filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
    dirs.push(...versions.map((version) => `/usr/lib/postgresql/${version}/bin`));
  } catch {
    // no Debian-style installation
  }
  for (const dir of dirs) {
    const initdb = path.join(dir, 'initdb');
    const postgres = path.join(dir, 'postgres');
    if (existsSync(initdb) && existsSync(postgres)) return { initdb, postgres };
  }
  throw new Error('PostgreSQL binaries (initdb, postgres) not found on PATH nor under /usr/lib/postgresql');
}

/**
 * A PostgreSQL cluster of this run's own (never the shared server, so it may be restarted): initdb into `dir`
 * (trust auth, user postgres), served on a free loopback port with no Unix socket. `stop` is a fast shutdown
 * (SIGINT: clients are disconnected); `start` again restarts it on the same port with the same data.
 */
export class PrivatePostgres {
  private child: ChildProcess | undefined;
  private port = 0;
  private readonly binaries = findBinaries();
  private readonly user = unprivilegedUser('PostgreSQL');
  private readonly dataDir: string;

  constructor(private readonly dir: string) {
    this.dataDir = path.join(dir, 'pg');
  }

  /** The server's URL (database `postgres`); a run database replaces the path. */
  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private ids(): { uid: number; gid: number } | Record<string, never> {
    return this.user ? { uid: this.user.uid, gid: this.user.gid } : {};
  }

  async start(): Promise<void> {
    if (!existsSync(path.join(this.dataDir, 'PG_VERSION'))) {
      chmodSync(this.dir, 0o755);
      mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
      if (this.user) chownSync(this.dataDir, this.user.uid, this.user.gid);
      const init = spawnSync(this.binaries.initdb, ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'], {
        encoding: 'utf8',
        ...this.ids(),
      });
      if (init.status !== 0) throw new Error(`initdb failed (${init.status ?? init.signal}): ${init.stderr}`);
    }
    if (this.port === 0) this.port = await freePort();
    const out = openSync(path.join(this.dir, 'pg.log'), 'a');
    if (this.user) chownSync(path.join(this.dir, 'pg.log'), this.user.uid, this.user.gid);
    const child = spawn(
      this.binaries.postgres,
      ['-D', this.dataDir, '-p', String(this.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300', '-c', 'fsync=off'],
      { stdio: ['ignore', out, out], ...this.ids() },
    );
    closeSync(out);
    childRegistry.add(child);
    this.child = child;
    await waitFor(() => postgresAnswers(this.url), 60_000, `the private PostgreSQL on port ${this.port}`, 200);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGINT');
    await exited;
  }
}

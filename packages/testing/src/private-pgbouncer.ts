import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { childRegistry } from './child-registry';
import { freePort } from './free-port';
import { postgresAnswers, unprivilegedUser } from './postgres-server';
import { waitFor } from './wait-for';

/** Debian's PgBouncer, or PGBOUNCER_PATH (what `npm test` installs or finds: infra/pgbouncer.mjs). */
export function pgbouncerBinary(): string {
  return process.env.PGBOUNCER_PATH || '/usr/sbin/pgbouncer';
}

/**
 * A PgBouncer of this run's own in transaction mode, as production runs it, in front of the PostgreSQL at
 * `serverUrl` (any database name passes through, trust auth as that server's). It keeps at most `poolSize`
 * server connections per database, fewer than the apps' pools add up to, so transactions really share them.
 * `stop` is an immediate shutdown (SIGTERM: every client connection dropped mid-transaction); `start` again
 * brings it back on the same port.
 */
export class PrivatePgBouncer {
  private child: ChildProcess | undefined;
  private port = 0;

  constructor(
    private readonly dir: string,
    private readonly serverUrl: string,
    private readonly poolSize = 20,
  ) {}

  /** `url` (a database URL of the server behind) as reached through this PgBouncer. */
  via(url: string): string {
    const through = new URL(url);
    through.hostname = '127.0.0.1';
    through.port = String(this.port);
    return through.toString();
  }

  private writeConfig(): string {
    const server = new URL(this.serverUrl);
    const user = decodeURIComponent(server.username || 'postgres');
    const userlist = path.join(this.dir, 'pgbouncer-users.txt');
    writeFileSync(userlist, `"${user}" ""\n`);
    const ini = path.join(this.dir, 'pgbouncer.ini');
    writeFileSync(ini, [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${this.port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${userlist}`,
      'pool_mode = transaction',
      'max_client_conn = 2000',
      `default_pool_size = ${this.poolSize}`,
      'ignore_startup_parameters = extra_float_digits,options,statement_timeout,lock_timeout,idle_in_transaction_session_timeout',
      'server_reset_query =',
      'logfile =',
      'pidfile =',
      '',
    ].join('\n'));
    for (const file of [ini, userlist]) chmodSync(file, 0o644);
    chmodSync(this.dir, 0o755);
    return ini;
  }

  async start(): Promise<void> {
    const binary = pgbouncerBinary();
    if (!existsSync(binary)) throw new Error(`PgBouncer is not installed at ${binary}: npm test installs Debian's pgbouncer, or set PGBOUNCER_PATH`);
    if (this.port === 0) this.port = await freePort();
    const ini = this.writeConfig();
    const user = unprivilegedUser('PgBouncer')?.name;
    const out = openSync(path.join(this.dir, 'pgbouncer.log'), 'a');
    const child = spawn(binary, [...(user ? ['-u', user] : []), ini], { stdio: ['ignore', out, out] });
    closeSync(out);
    childRegistry.add(child);
    this.child = child;
    // Asked for the server's `postgres` database: the one in serverUrl (DATABASE_URL's) need not exist.
    const probe = new URL(this.via(this.serverUrl));
    probe.pathname = '/postgres';
    await waitFor(() => postgresAnswers(probe.toString()), 15_000, `the private PgBouncer on port ${this.port}`);
  }

  /** SIGTERM: PgBouncer's immediate shutdown. Resolves once it is gone. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  }

  log(): string {
    try {
      return readFileSync(path.join(this.dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return '';
    }
  }
}

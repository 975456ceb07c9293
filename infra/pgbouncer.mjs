// PgBouncer for the pooled-PostgreSQL scenario (e2e/src/pgbouncer.test.ts): Debian's package, run by the test in
// transaction mode in front of the test server. `npm test` makes sure it is there first: PGBOUNCER_PATH (default
// /usr/sbin/pgbouncer) when it exists; else, as root with apt-get, `apt-get install -y pgbouncer` (the package's
// own service is not started: the test runs a private instance); else one line saying what to install.
// Only Node built-ins: this runs before `npm install` may have happened.
import { debianToolPlan, ensureDebianTool, hostTools } from './host-tools.mjs';
import { say } from './output.mjs';

export const DEFAULT_PGBOUNCER_PATH = '/usr/sbin/pgbouncer';

/** What this machine offers; tests pass their own. */
export const pgbouncerHost = hostTools;

const PGBOUNCER = {
  variable: 'PGBOUNCER_PATH',
  defaultPath: DEFAULT_PGBOUNCER_PATH,
  pkg: 'pgbouncer',
  label: 'PgBouncer',
  binary: 'a pgbouncer binary',
  purpose: 'the pooled-PostgreSQL tests',
};

/** What to do about PgBouncer (see debianToolPlan). */
export function pgbouncerPlan({ env = process.env, host = pgbouncerHost } = {}) {
  return debianToolPlan(PGBOUNCER, { env, host });
}

/** Makes sure PgBouncer is there and resolves with its path (what the e2e tests get as PGBOUNCER_PATH). */
export async function ensurePgbouncer(supervisor, { env = process.env, host = pgbouncerHost } = {}) {
  return ensureDebianTool(supervisor, PGBOUNCER, { env, host, say });
}

// PgBouncer for the pooled-PostgreSQL scenario (e2e/src/pgbouncer.test.ts): Debian's package, run by the test in
// transaction mode in front of the test server. `npm test` makes sure it is there first: PGBOUNCER_PATH (default
// /usr/sbin/pgbouncer) when it exists; else, as root with apt-get, `apt-get install -y pgbouncer` (the package's
// own service is not started: the test runs a private instance); else one line saying what to install.
// Only Node built-ins: this runs before `npm install` may have happened.
import { DevError } from './errors.mjs';
import { aptInstall, hostTools } from './host-tools.mjs';
import { say } from './output.mjs';

export const DEFAULT_PGBOUNCER_PATH = '/usr/sbin/pgbouncer';

/** What this machine offers; tests pass their own. */
export const pgbouncerHost = hostTools;

/**
 * What to do about PgBouncer: `{action: 'use', path}`, `{action: 'install', path}` (Debian's package, as root with
 * apt-get) or `{action: 'fail', message}`.
 * @param {{env?: NodeJS.ProcessEnv, host?: typeof pgbouncerHost}} options
 */
export function pgbouncerPlan({ env = process.env, host = pgbouncerHost } = {}) {
  const custom = env.PGBOUNCER_PATH || undefined;
  const wanted = custom ?? DEFAULT_PGBOUNCER_PATH;
  if (host.isExecutable(wanted)) return { action: 'use', path: wanted };
  if (custom) {
    return { action: 'fail', message: `PGBOUNCER_PATH=${custom} is not an executable: point it at a pgbouncer binary, or unset it to use Debian's ${DEFAULT_PGBOUNCER_PATH}` };
  }
  if (host.hasAptGet() && host.isRoot()) return { action: 'install', path: DEFAULT_PGBOUNCER_PATH };
  const how = host.hasAptGet() ? 'run `sudo apt-get install -y pgbouncer`' : 'install PgBouncer (Debian/Ubuntu package `pgbouncer`)';
  return { action: 'fail', message: `the pooled-PostgreSQL test needs PgBouncer at ${DEFAULT_PGBOUNCER_PATH}, which is missing: ${how}, or set PGBOUNCER_PATH to a pgbouncer binary` };
}

/** Makes sure PgBouncer is there and resolves with its path (what the e2e tests get as PGBOUNCER_PATH). */
export async function ensurePgbouncer(supervisor, { env = process.env, host = pgbouncerHost } = {}) {
  const plan = pgbouncerPlan({ env, host });
  if (plan.action === 'use') return plan.path;
  if (plan.action === 'fail') throw new DevError(plan.message);
  say(`PgBouncer: ${plan.path} is missing, installing Debian's package (apt-get install -y pgbouncer)`);
  const code = await aptInstall(supervisor, 'pgbouncer', { env, label: 'PgBouncer', say });
  if (code !== 0 || !host.isExecutable(plan.path)) {
    throw new DevError(`apt-get could not install pgbouncer (exit ${code}): install Debian's package \`pgbouncer\` by hand, or set PGBOUNCER_PATH to a pgbouncer binary`);
  }
  return plan.path;
}

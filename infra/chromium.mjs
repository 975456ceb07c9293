// Chromium for the browser tests (e2e/src/dashboard-journey.test.ts): Debian's package, driven through
// playwright-core, whose own browser download cannot be relied on. `npm test` makes sure it is there first:
// CHROMIUM_PATH (default /usr/bin/chromium) when it exists; else, as root with apt-get, `apt-get install -y
// chromium`; else one line saying what to install.
// Only Node built-ins: this runs before `npm install` may have happened.
import path from 'node:path';
import { DevError } from './errors.mjs';
import { aptInstall, hostTools } from './host-tools.mjs';
import { say } from './output.mjs';

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** What this machine offers; tests pass their own. */
export const chromiumHost = hostTools;

/**
 * What to do about Chromium: `{action: 'use', path}` when it is there, `{action: 'install', path}` when apt-get
 * can bring Debian's package (which installs /usr/bin/chromium only), or `{action: 'fail', message}`.
 * @param {{env?: NodeJS.ProcessEnv, host?: typeof chromiumHost}} options
 */
export function chromiumPlan({ env = process.env, host = chromiumHost } = {}) {
  const custom = env.CHROMIUM_PATH || undefined;
  const wanted = custom ?? DEFAULT_CHROMIUM_PATH;
  if (host.isExecutable(wanted)) return { action: 'use', path: wanted };
  if (custom) {
    return { action: 'fail', message: `CHROMIUM_PATH=${custom} is not an executable: point it at a Chromium or Chrome binary, or unset it to use Debian's ${DEFAULT_CHROMIUM_PATH}` };
  }
  if (host.hasAptGet() && host.isRoot()) return { action: 'install', path: DEFAULT_CHROMIUM_PATH };
  const how = host.hasAptGet() ? 'run `sudo apt-get install -y chromium`' : 'install Chromium (Debian/Ubuntu package `chromium`)';
  return { action: 'fail', message: `the browser tests need Chromium at ${DEFAULT_CHROMIUM_PATH}, which is missing: ${how}, or set CHROMIUM_PATH to a Chromium or Chrome binary` };
}

/**
 * Makes sure Chromium is there for the browser tests and resolves with its path (what the tests get as
 * CHROMIUM_PATH). Installs Debian's package when the plan says so; a fresh machine's apt lists may be empty,
 * so a failed install is retried once after `apt-get update`.
 */
export async function ensureChromium(supervisor, { env = process.env, host = chromiumHost } = {}) {
  const plan = chromiumPlan({ env, host });
  if (plan.action === 'use') return plan.path;
  if (plan.action === 'fail') throw new DevError(plan.message);
  say(`Chromium: ${plan.path} is missing, installing Debian's package (apt-get install -y chromium)`);
  const code = await aptInstall(supervisor, 'chromium', { env, label: 'Chromium', say });
  if (code !== 0 || !host.isExecutable(plan.path)) {
    throw new DevError(`apt-get could not install chromium (exit ${code}): install Debian's package \`chromium\` by hand, or set CHROMIUM_PATH to a Chromium or Chrome binary`);
  }
  return path.resolve(plan.path);
}

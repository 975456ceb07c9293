// Chromium for the browser tests (e2e/src/dashboard-journey.test.ts): Debian's package, driven through
// playwright-core, whose own browser download cannot be relied on. `npm test` makes sure it is there first:
// CHROMIUM_PATH (default /usr/bin/chromium) when it exists; else, as root with apt-get, `apt-get install -y
// chromium`; else one line saying what to install.
// Only Node built-ins: this runs before `npm install` may have happened.
import { debianToolPlan, ensureDebianTool, hostTools } from './host-tools.mjs';
import { say } from './output.mjs';

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** What this machine offers; tests pass their own. */
export const chromiumHost = hostTools;

const CHROMIUM = {
  variable: 'CHROMIUM_PATH',
  defaultPath: DEFAULT_CHROMIUM_PATH,
  pkg: 'chromium',
  label: 'Chromium',
  binary: 'a Chromium or Chrome binary',
  purpose: 'the browser tests',
};

/**
 * What to do about Chromium: `{action: 'use', path}` when it is there, `{action: 'install', path}` when apt-get
 * can bring Debian's package (which installs /usr/bin/chromium only), or `{action: 'fail', message}`.
 * @param {{env?: NodeJS.ProcessEnv, host?: typeof chromiumHost}} options
 */
export function chromiumPlan({ env = process.env, host = chromiumHost } = {}) {
  return debianToolPlan(CHROMIUM, { env, host });
}

/** Makes sure Chromium is there for the browser tests and resolves with its path (what the tests get as CHROMIUM_PATH). */
export async function ensureChromium(supervisor, { env = process.env, host = chromiumHost } = {}) {
  return ensureDebianTool(supervisor, CHROMIUM, { env, host, say });
}

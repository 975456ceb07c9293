// What the machine offers the dev scripts that bring a tool from Debian's packages when it is missing (Chromium,
// kubectl): whether a file runs, whether we are root, whether apt-get is there. Tests pass their own.
// Only Node built-ins: this runs before `npm install` may have happened.
import { accessSync, constants, existsSync } from 'node:fs';
import { DevError } from './errors.mjs';

const APT_GET = '/usr/bin/apt-get';

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export const hostTools = {
  isExecutable,
  isRoot: () => typeof process.getuid === 'function' && process.getuid() === 0,
  hasAptGet: () => existsSync(APT_GET),
};

/**
 * `apt-get install -y <pkg>`, retried once after `apt-get update` (a fresh machine's package lists may be empty);
 * resolves with the exit code. `label` starts the line said before the retry.
 */
export async function aptInstall(supervisor, pkg, { env = process.env, label = pkg, say = () => undefined } = {}) {
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => supervisor.runForeground(APT_GET, ['install', '-y', pkg], { env: aptEnv });
  let code = await install();
  if (code !== 0) {
    say(`${label}: the install failed; updating the package lists and trying once more`);
    if ((await supervisor.runForeground(APT_GET, ['update'], { env: aptEnv })) === 0) code = await install();
  }
  return code;
}

/**
 * A tool the tests need at a fixed path from one Debian package (Chromium, PgBouncer): `variable` (e.g.
 * CHROMIUM_PATH) overrides the path. `binary` describes what the variable must point at, `purpose` who needs it.
 * @typedef {{variable: string, defaultPath: string, pkg: string, label: string, binary: string, purpose: string}} DebianTool
 */

/**
 * What to do about a DebianTool: `{action: 'use', path}` when it is there, `{action: 'install', path}` when apt-get can
 * bring Debian's package (as root), or `{action: 'fail', message}`.
 * @param {DebianTool} tool
 * @param {{env?: NodeJS.ProcessEnv, host?: typeof hostTools}} options
 */
export function debianToolPlan(tool, { env = process.env, host = hostTools } = {}) {
  const custom = env[tool.variable] || undefined;
  const wanted = custom ?? tool.defaultPath;
  if (host.isExecutable(wanted)) return { action: 'use', path: wanted };
  if (custom) {
    return { action: 'fail', message: `${tool.variable}=${custom} is not an executable: point it at ${tool.binary}, or unset it to use Debian's ${tool.defaultPath}` };
  }
  if (host.hasAptGet() && host.isRoot()) return { action: 'install', path: tool.defaultPath };
  const how = host.hasAptGet() ? `run \`sudo apt-get install -y ${tool.pkg}\`` : `install ${tool.label} (Debian/Ubuntu package \`${tool.pkg}\`)`;
  return { action: 'fail', message: `${tool.purpose} need ${tool.label} at ${tool.defaultPath}, which is missing: ${how}, or set ${tool.variable} to ${tool.binary}` };
}

/**
 * Makes sure a DebianTool is there and resolves with its path. Installs Debian's package when the plan says so; a
 * fresh machine's apt lists may be empty, so a failed install is retried once after `apt-get update`.
 * @param {DebianTool} tool
 */
export async function ensureDebianTool(supervisor, tool, { env = process.env, host = hostTools, say = () => undefined } = {}) {
  const plan = debianToolPlan(tool, { env, host });
  if (plan.action === 'use') return plan.path;
  if (plan.action === 'fail') throw new DevError(plan.message);
  say(`${tool.label}: ${plan.path} is missing, installing Debian's package (apt-get install -y ${tool.pkg})`);
  const code = await aptInstall(supervisor, tool.pkg, { env, label: tool.label, say });
  if (code !== 0 || !host.isExecutable(plan.path)) {
    throw new DevError(`apt-get could not install ${tool.pkg} (exit ${code}): install Debian's package \`${tool.pkg}\` by hand, or set ${tool.variable} to ${tool.binary}`);
  }
  return plan.path;
}

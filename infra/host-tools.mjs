// What the machine offers the dev scripts that bring a tool from Debian's packages when it is missing (Chromium,
// kubectl): whether a file runs, whether we are root, whether apt-get is there. Tests pass their own.
// Only Node built-ins: this runs before `npm install` may have happened.
import { accessSync, constants, existsSync } from 'node:fs';

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

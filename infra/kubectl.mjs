// kubectl for the Kubernetes manifest tests (infra/k8s.test.mjs), which render infra/k8s/ with `kubectl
// kustomize`, offline. `npm test` makes sure it is there first: KUBECTL (default: `kubectl` on PATH) when it
// exists; else, as root with apt-get, Debian's `kubernetes-client`; else one line saying what to install.
// Only Node built-ins: this runs before `npm install` may have happened.
import path from 'node:path';
import { DevError } from './errors.mjs';
import { aptInstall, hostTools } from './host-tools.mjs';
import { say } from './output.mjs';

/** Where Debian's kubernetes-client puts it. */
export const DEBIAN_KUBECTL_PATH = '/usr/bin/kubectl';
const HOW = 'install kubectl (https://kubernetes.io/docs/tasks/tools/, or Debian/Ubuntu package `kubernetes-client`)';

/** What this machine offers; tests pass their own. */
export const kubectlHost = hostTools;

/** The first executable `kubectl` on PATH, or undefined. */
function onPath(env, host) {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'kubectl');
    if (host.isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * What to do about kubectl: `{action: 'use', path}`, `{action: 'install', path}` (Debian's package, as root
 * with apt-get) or `{action: 'fail', message}`.
 * @param {{env?: NodeJS.ProcessEnv, host?: typeof kubectlHost}} options
 */
export function kubectlPlan({ env = process.env, host = kubectlHost } = {}) {
  const custom = env.KUBECTL || undefined;
  if (custom) {
    if (host.isExecutable(custom)) return { action: 'use', path: custom };
    return { action: 'fail', message: `KUBECTL=${custom} is not an executable: point it at a kubectl binary, or unset it to use the one on PATH` };
  }
  const found = onPath(env, host);
  if (found) return { action: 'use', path: found };
  if (host.hasAptGet() && host.isRoot()) return { action: 'install', path: DEBIAN_KUBECTL_PATH };
  const how = host.hasAptGet() ? 'run `sudo apt-get install -y kubernetes-client`' : HOW;
  return { action: 'fail', message: `the Kubernetes manifest tests need kubectl, which is missing: ${how}, or set KUBECTL to a kubectl binary` };
}

/**
 * Makes sure kubectl is there and resolves with its path (what infra/k8s.test.mjs gets as KUBECTL). A fresh
 * machine's apt lists may be empty, so a failed install is retried once after `apt-get update`.
 */
export async function ensureKubectl(supervisor, { env = process.env, host = kubectlHost } = {}) {
  const plan = kubectlPlan({ env, host });
  if (plan.action === 'use') return plan.path;
  if (plan.action === 'fail') throw new DevError(plan.message);
  say('kubectl is missing, installing Debian\'s package (apt-get install -y kubernetes-client)');
  const code = await aptInstall(supervisor, 'kubernetes-client', { env, label: 'kubectl', say });
  if (code !== 0 || !host.isExecutable(plan.path)) {
    throw new DevError(`apt-get could not install kubernetes-client (exit ${code}): ${HOW}, or set KUBECTL to a kubectl binary`);
  }
  return plan.path;
}

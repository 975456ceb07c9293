import { existsSync } from 'node:fs';
import path from 'node:path';
import { startAppProcess, type AppProcess, type StartAppOptions } from '@hashwatch/testing';

/** The repository root: apps are started from their builds under apps/<app>/dist. */
export const REPO_ROOT = path.resolve(__dirname, '../../..');

export type AppName = 'gateway' | 'scanner' | 'engagement-poller' | 'notifier' | 'x-sim' | 'alert-inbox';

/** Each app's package.json, found by package name like any other dependency of this workspace. */
const MANIFESTS: Record<AppName | 'admin', string> = {
  gateway: require.resolve('@hashwatch/gateway/package.json'),
  scanner: require.resolve('@hashwatch/scanner/package.json'),
  'engagement-poller': require.resolve('@hashwatch/engagement-poller/package.json'),
  notifier: require.resolve('@hashwatch/notifier/package.json'),
  'x-sim': require.resolve('@hashwatch/x-sim/package.json'),
  'alert-inbox': require.resolve('@hashwatch/alert-inbox/package.json'),
  admin: require.resolve('@hashwatch/admin/package.json'),
};

/** The built entry of an app: what `npm run start -w @hashwatch/<app>` runs. */
export function entryPoint(app: AppName | 'admin'): string {
  const file = path.join(path.dirname(MANIFESTS[app]), 'dist', 'main.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: build the apps first (npx turbo run build --filter='./apps/*')`);
  return file;
}

/** `startAppProcess` of one of the repository's apps: its built entry, run from the repository root. */
export function startApp(options: Omit<StartAppOptions<AppName>, 'entry' | 'cwd'>): Promise<AppProcess<AppName>> {
  return startAppProcess({ ...options, entry: entryPoint(options.app), cwd: REPO_ROOT });
}

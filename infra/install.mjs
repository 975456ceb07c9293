// `npm install`, run only when it has something to do: a fresh clone, or a manifest changed since.
import { existsSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { DevError } from './errors.mjs';
import { say } from './output.mjs';
import { ROOT, workspaces } from './workspaces.mjs';

// npm writes this file at the end of every install that changes node_modules.
const MARKER = path.join(ROOT, 'node_modules/.package-lock.json');

const mtime = (file) => statSync(file).mtimeMs;

/** Why an install is due, or undefined when node_modules is up to date. */
function installReason() {
  if (!existsSync(MARKER)) return 'node_modules is missing';
  const installedAt = mtime(MARKER);
  const manifests = ['package.json', 'package-lock.json', ...workspaces().map((ws) => `${ws.rel}/package.json`)];
  const changed = manifests.find((rel) => existsSync(path.join(ROOT, rel)) && mtime(path.join(ROOT, rel)) > installedAt);
  return changed ? `${changed} changed since the last install` : undefined;
}

export async function ensureInstall(supervisor) {
  const reason = installReason();
  if (!reason) return;
  say(`npm install (${reason})`);
  const code = await supervisor.runForeground('npm', ['install', '--no-audit', '--no-fund', '--loglevel=warn']);
  if (code !== 0) throw new DevError(`npm install failed (exit ${code})`);
  // npm leaves the marker untouched when nothing changed; touch it so the next run skips the install.
  const now = new Date();
  utimesSync(MARKER, now, now);
}

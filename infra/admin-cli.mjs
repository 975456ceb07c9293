// The built admin CLI (apps/admin), which `npm start` uses to create the demo account and its key.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DevError } from './errors.mjs';
import { ROOT } from './workspaces.mjs';

/** The last line of `text` that parses as JSON: the CLI may log before its answer. */
function lastJson(text) {
  for (const line of (text ?? '').trim().split('\n').reverse()) {
    try {
      return JSON.parse(line);
    } catch {
      // a log line
    }
  }
  return undefined;
}

/** Runs the admin CLI: one JSON object on stdout when it succeeds, `{error}` on stderr when not. */
export function admin(args, env) {
  const main = path.join(ROOT, 'apps/admin/dist/main.js');
  if (!existsSync(main)) throw new DevError('the admin CLI is not built (apps/admin/dist/main.js is missing after the build)');
  const result = spawnSync(process.execPath, [main, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  if (result.status === 0) {
    const data = lastJson(result.stdout);
    if (data) return { ok: true, data };
  }
  const error = lastJson(result.stderr)?.error;
  return { ok: false, error: error ?? { code: 'unknown', message: `exit ${result.status ?? result.signal}: ${(result.stderr ?? '').trim().split('\n').pop()}` } };
}

export function adminOrThrow(args, env) {
  const result = admin(args, env);
  if (!result.ok) throw new DevError(`admin ${args[0]} failed: ${result.error.code}: ${result.error.message}`);
  return result.data;
}

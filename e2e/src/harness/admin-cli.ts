import { execFile } from 'node:child_process';
import { entryPoint, REPO_ROOT } from './apps';

/**
 * Runs the built admin CLI (`node apps/admin/dist/main.js <args>`, what `npm run admin --` runs) against one
 * database and answers its JSON stdout; rejects with its stderr when it exits non-zero.
 */
export function runAdmin(databaseUrl: string, args: string[]): Promise<unknown> {
  const entry = entryPoint('admin');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [entry, ...args],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`admin ${args.join(' ')} failed: ${stderr || error.message}`));
          return;
        }
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`admin ${args.join(' ')} printed no JSON: ${stdout}`));
        }
      },
    );
  });
}

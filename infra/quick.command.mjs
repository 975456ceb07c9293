// `npm run test:quick`: the unit tests of what changed since main, in one jest run, with no service started. The files
// changed since the branch left main (committed, staged, unstaged or new) go to jest's --findRelatedTests, which
// follows imports across workspaces (a change in packages/x-api runs the scanner's unit tests that import it).
// `npm run test:quick -- --all` runs every unit test. Which files are unit tests: infra/test-tiers.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DevError } from './errors.mjs';
import { ensureInstall } from './install.mjs';
import { say } from './output.mjs';
import { generatePrismaClient } from './prisma-client.mjs';
import { ROOT } from './workspaces.mjs';

// Closed ports: a unit test that reaches for PostgreSQL or Redis fails here rather than touching a server.
const NO_SERVICES = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:9/no_services_in_quick_tests', REDIS_URL: 'redis://127.0.0.1:9' };
const SOURCE = /^(apps|packages)\/[^/]+\/src\/.+\.tsx?$/;

function git(args) {
  const result = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** The source files changed since HEAD's merge base with main (or origin/main), the working tree included. */
export function changedSources() {
  const base = ['main', 'origin/main'].map((ref) => git(['merge-base', 'HEAD', ref])).find(Boolean);
  if (!base) throw new DevError('no main branch to compare with: run `npm run test:quick -- --all` for every unit test');
  const names = [
    ...(git(['diff', '--name-only', base]) ?? '').split('\n'),
    ...(git(['ls-files', '--others', '--exclude-standard']) ?? '').split('\n'),
  ];
  return [...new Set(names)].filter((name) => SOURCE.test(name) && existsSync(path.join(ROOT, name))).sort();
}

export async function quickCommand(supervisor, args = []) {
  const every = args.includes('--all');
  await ensureInstall(supervisor);
  await generatePrismaClient(supervisor);
  const changed = every ? [] : changedSources();
  if (!every && changed.length === 0) {
    say('no source file changed since main: nothing to test (`npm run test:quick -- --all` runs every unit test)');
    return 0;
  }
  say(every ? 'every unit test' : `unit tests related to ${changed.length} changed source file(s)`);
  const related = every ? [] : ['--passWithNoTests', '--findRelatedTests', ...changed];
  return supervisor.runForeground('npx', ['--no-install', 'jest', '--config', 'infra/jest.quick.config.mjs', ...related], {
    env: { ...process.env, ...NO_SERVICES },
  });
}

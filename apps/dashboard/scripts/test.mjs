// `npm test` in this workspace: vitest, taking the flags the root `npm test` passes every workspace's jest
// (infra/test.command.mjs): `--json --outputFile=<file>` becomes vitest's JSON reporter (a jest-compatible report
// the summary reads) beside its default one; `--forceExit` has no vitest equivalent and is dropped.
import { spawnSync } from 'node:child_process';

const args = ['run'];
for (const arg of process.argv.slice(2)) {
  if (arg === '--json') args.push('--reporter=default', '--reporter=json');
  else if (arg.startsWith('--outputFile=')) args.push(`--outputFile.json=${arg.slice('--outputFile='.length)}`);
  else if (arg !== '--forceExit') args.push(arg);
}
const result = spawnSync('npx', ['--no-install', 'vitest', ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);

// npm run test:infra  (npm test runs these too)
import assert from 'node:assert/strict';
import { buildSteps } from './start.command.mjs';

const ws = (folder, build) => ({ name: `@hashwatch/${folder}`, folder, dir: `/repo/apps/${folder}`, rel: `apps/${folder}`, scripts: { build } });
const TSC = 'tsc -p tsconfig.build.json';

describe('buildSteps', () => {
  it('transpiles the TypeScript targets in one step and runs every other build beside it', () => {
    const all = [ws('gateway', TSC), ws('admin', TSC), ws('dashboard', 'vite build'), ws('e2e', 'tsc -p tsconfig.json')];
    const steps = buildSteps(['@hashwatch/gateway', '@hashwatch/admin', '@hashwatch/dashboard'], all);
    assert.deepEqual(
      steps.map((step) => [step.label, step.args.slice(-2)]),
      [
        ['transpile', ['@hashwatch/gateway', '@hashwatch/admin']],
        ['dashboard', ['--silent', 'build']],
      ],
    );
    assert.match(steps[0].args[0], /infra\/transpile\.mjs$/);
    assert.equal(steps[1].cwd, '/repo/apps/dashboard');
  });

  it('builds by default what the demo runs and never the end-to-end tests', () => {
    const steps = buildSteps();
    const transpiled = steps[0].args.slice(1);
    assert.ok(transpiled.includes('@hashwatch/gateway'));
    assert.ok(steps.some((step) => step.label === 'dashboard'));
    assert.ok(!steps.flatMap((step) => step.args).some((arg) => arg.includes('e2e')));
  });
});

// node --test infra/  (npm test runs these too)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildArgs } from './start.command.mjs';

describe('buildArgs', () => {
  it('asks turbo for each target with its dependencies and nothing else', () => {
    const args = buildArgs(['@hashwatch/gateway', '@hashwatch/admin']);
    assert.deepEqual(args.slice(0, 4), ['--no-install', 'turbo', 'run', 'build']);
    assert.deepEqual(args.filter((arg) => arg.startsWith('--filter')), ['--filter=@hashwatch/gateway...', '--filter=@hashwatch/admin...']);
  });

  it('builds by default what the demo runs and never the end-to-end tests', () => {
    const filters = buildArgs().filter((arg) => arg.startsWith('--filter'));
    assert.ok(filters.includes('--filter=@hashwatch/gateway...'));
    assert.ok(filters.includes('--filter=@hashwatch/dashboard...'));
    assert.ok(!filters.some((arg) => arg.includes('e2e')));
  });
});

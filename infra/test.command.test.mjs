import assert from 'node:assert/strict';
import { DevError } from './errors.mjs';
import { selectTests } from './test.command.mjs';

describe('selectTests: what `npm test -- <name>…` runs', () => {
  const gateway = { name: '@hashwatch/gateway', rel: 'apps/gateway', folder: 'gateway' };
  const queues = { name: '@hashwatch/queues', rel: 'packages/queues', folder: 'queues' };
  const e2e = { name: '@hashwatch/e2e', rel: 'e2e', folder: 'e2e' };
  const testable = [gateway, queues, e2e];

  it('runs everything, the cluster pass and infra/ included, when nothing is named', () => {
    assert.deepEqual(selectTests([], testable), { workspaces: testable, infra: true, cluster: true });
  });

  it('takes a workspace by package name, folder or path, in the repository order, and infra by its name', () => {
    assert.deepEqual(selectTests(['e2e', 'apps/gateway/', '@hashwatch/queues'], testable), { workspaces: testable, infra: false, cluster: false });
    assert.deepEqual(selectTests(['infra'], testable), { workspaces: [], infra: true, cluster: false });
  });

  it('refuses a name it does not know, listing the ones it does', () => {
    assert.throws(() => selectTests(['gatway'], testable), (error) => error instanceof DevError && /gatway.*infra, gateway, queues, e2e/.test(error.message));
  });
});

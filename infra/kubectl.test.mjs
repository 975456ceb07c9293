// npm run test:infra  (npm test runs these too)
import assert from 'node:assert/strict';
import { DevError } from './errors.mjs';
import { fakeHost as host, recordingSupervisor } from './host-tools-testing.mjs';
import { DEBIAN_KUBECTL_PATH, ensureKubectl, kubectlPlan } from './kubectl.mjs';

describe('kubectlPlan', () => {
  it('uses the first kubectl on PATH', () => {
    const plan = kubectlPlan({ env: { PATH: '/opt/empty:/usr/local/bin:/usr/bin' }, host: host({ executables: ['/usr/local/bin/kubectl', '/usr/bin/kubectl'] }) });
    assert.deepEqual(plan, { action: 'use', path: '/usr/local/bin/kubectl' });
  });

  it('uses KUBECTL instead when it is set and executable', () => {
    const plan = kubectlPlan({ env: { KUBECTL: '/opt/k/kubectl', PATH: '/usr/bin' }, host: host({ executables: ['/opt/k/kubectl', '/usr/bin/kubectl'] }) });
    assert.deepEqual(plan, { action: 'use', path: '/opt/k/kubectl' });
  });

  it('installs Debian\'s package when it is missing and we are root with apt-get', () => {
    assert.deepEqual(kubectlPlan({ env: { PATH: '/usr/bin' }, host: host({ root: true, apt: true }) }), { action: 'install', path: DEBIAN_KUBECTL_PATH });
  });

  it('says what to install when it is missing and we are not root', () => {
    const plan = kubectlPlan({ env: { PATH: '/usr/bin' }, host: host({ apt: true }) });
    assert.equal(plan.action, 'fail');
    assert.match(plan.message, /sudo apt-get install -y kubernetes-client/);
    assert.match(plan.message, /KUBECTL/);
  });

  it('says what to install when there is no apt-get, even as root', () => {
    const plan = kubectlPlan({ env: {}, host: host({ root: true }) });
    assert.equal(plan.action, 'fail');
    assert.match(plan.message, /install kubectl/);
  });

  it('does not install over a KUBECTL that points nowhere: the variable is the mistake', () => {
    const plan = kubectlPlan({ env: { KUBECTL: '/nowhere/kubectl' }, host: host({ root: true, apt: true }) });
    assert.equal(plan.action, 'fail');
    assert.match(plan.message, /KUBECTL=\/nowhere\/kubectl/);
  });
});

describe('ensureKubectl', () => {
  it('runs nothing when kubectl is there', async () => {
    const supervisor = recordingSupervisor([]);
    assert.equal(await ensureKubectl(supervisor, { env: { PATH: '/usr/bin' }, host: host({ executables: ['/usr/bin/kubectl'] }) }), '/usr/bin/kubectl');
    assert.deepEqual(supervisor.runs, []);
  });

  it('updates the package lists and tries once more when the first install fails', async () => {
    const machine = host({ root: true, apt: true });
    const supervisor = recordingSupervisor([100, 0, 0], (args) => {
      if (args[0] === 'install' && supervisor.runs.length === 3) machine.isExecutable = (file) => file === DEBIAN_KUBECTL_PATH;
    });
    assert.equal(await ensureKubectl(supervisor, { env: {}, host: machine }), DEBIAN_KUBECTL_PATH);
    assert.deepEqual(supervisor.runs, [
      '/usr/bin/apt-get install -y kubernetes-client', '/usr/bin/apt-get update', '/usr/bin/apt-get install -y kubernetes-client',
    ]);
  });

  it('stops with one line when the install leaves no kubectl', async () => {
    const supervisor = recordingSupervisor([100, 0, 100]);
    await assert.rejects(ensureKubectl(supervisor, { env: {}, host: host({ root: true, apt: true }) }), (error) => {
      assert.ok(error instanceof DevError);
      assert.match(error.message, /apt-get could not install kubernetes-client \(exit 100\)/);
      return true;
    });
  });

  it('stops with the plan\'s line, running nothing, when it cannot install', async () => {
    const supervisor = recordingSupervisor([]);
    await assert.rejects(ensureKubectl(supervisor, { env: {}, host: host() }), DevError);
    assert.deepEqual(supervisor.runs, []);
  });
});

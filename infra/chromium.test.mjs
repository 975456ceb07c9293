// npm run test:infra  (npm test runs these too)
import assert from 'node:assert/strict';
import { chromiumPlan, DEFAULT_CHROMIUM_PATH, ensureChromium } from './chromium.mjs';
import { DevError } from './errors.mjs';
import { fakeHost as host, recordingSupervisor } from './host-tools-testing.mjs';

describe('chromiumPlan', () => {
  it('uses /usr/bin/chromium when it is there, whoever runs the tests', () => {
    assert.deepEqual(chromiumPlan({ env: {}, host: host({ executables: [DEFAULT_CHROMIUM_PATH] }) }), { action: 'use', path: DEFAULT_CHROMIUM_PATH });
  });

  it('uses CHROMIUM_PATH instead when it is set and executable', () => {
    const plan = chromiumPlan({ env: { CHROMIUM_PATH: '/opt/chrome/chrome' }, host: host({ executables: ['/opt/chrome/chrome'], root: true, apt: true }) });
    assert.deepEqual(plan, { action: 'use', path: '/opt/chrome/chrome' });
  });

  it('installs Debian\'s package when it is missing and we are root with apt-get', () => {
    assert.deepEqual(chromiumPlan({ env: {}, host: host({ root: true, apt: true }) }), { action: 'install', path: DEFAULT_CHROMIUM_PATH });
  });

  it('says what to install when it is missing and we are not root', () => {
    const plan = chromiumPlan({ env: {}, host: host({ apt: true }) });
    assert.equal(plan.action, 'fail');
    assert.match(plan.message, /sudo apt-get install -y chromium/);
    assert.match(plan.message, /CHROMIUM_PATH/);
  });

  it('says what to install when there is no apt-get, even as root', () => {
    const plan = chromiumPlan({ env: {}, host: host({ root: true }) });
    assert.equal(plan.action, 'fail');
    assert.match(plan.message, /package `chromium`/);
  });

  it('does not install over a CHROMIUM_PATH that points nowhere: the variable is the mistake', () => {
    const plan = chromiumPlan({ env: { CHROMIUM_PATH: '/nowhere/chrome' }, host: host({ root: true, apt: true }) });
    assert.equal(plan.action, 'fail');
    assert.match(plan.message, /CHROMIUM_PATH=\/nowhere\/chrome/);
  });
});

describe('ensureChromium', () => {
  it('runs nothing when Chromium is there', async () => {
    const supervisor = recordingSupervisor([]);
    assert.equal(await ensureChromium(supervisor, { env: {}, host: host({ executables: [DEFAULT_CHROMIUM_PATH] }) }), DEFAULT_CHROMIUM_PATH);
    assert.deepEqual(supervisor.runs, []);
  });

  it('updates the package lists and tries once more when the first install fails', async () => {
    const machine = host({ root: true, apt: true });
    const supervisor = recordingSupervisor([100, 0, 0], (args) => {
      if (args[0] === 'install' && supervisor.runs.length === 3) machine.isExecutable = (file) => file === DEFAULT_CHROMIUM_PATH;
    });
    assert.equal(await ensureChromium(supervisor, { env: {}, host: machine }), DEFAULT_CHROMIUM_PATH);
    assert.deepEqual(supervisor.runs, ['/usr/bin/apt-get install -y chromium', '/usr/bin/apt-get update', '/usr/bin/apt-get install -y chromium']);
  });

  it('stops with one line when the install leaves no Chromium', async () => {
    const supervisor = recordingSupervisor([100, 0, 100]);
    await assert.rejects(ensureChromium(supervisor, { env: {}, host: host({ root: true, apt: true }) }), (error) => {
      assert.ok(error instanceof DevError);
      assert.match(error.message, /apt-get could not install chromium \(exit 100\)/);
      return true;
    });
  });

  it('stops with the plan\'s line, running nothing, when it cannot install', async () => {
    const supervisor = recordingSupervisor([]);
    await assert.rejects(ensureChromium(supervisor, { env: {}, host: host() }), DevError);
    assert.deepEqual(supervisor.runs, []);
  });
});

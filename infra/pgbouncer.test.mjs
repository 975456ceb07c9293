// npm run test:infra  (npm test runs these too)
import assert from 'node:assert/strict';
import { DevError } from './errors.mjs';
import { fakeHost as host, recordingSupervisor } from './host-tools-testing.mjs';
import { DEFAULT_PGBOUNCER_PATH, ensurePgbouncer, pgbouncerPlan } from './pgbouncer.mjs';

describe('pgbouncerPlan', () => {
  it('uses Debian\'s pgbouncer when it is there', () => {
    assert.deepEqual(pgbouncerPlan({ env: {}, host: host({ executables: [DEFAULT_PGBOUNCER_PATH] }) }), { action: 'use', path: DEFAULT_PGBOUNCER_PATH });
  });

  it('uses PGBOUNCER_PATH when set, and refuses one that points nowhere rather than installing over it', () => {
    assert.deepEqual(pgbouncerPlan({ env: { PGBOUNCER_PATH: '/opt/pgb' }, host: host({ executables: ['/opt/pgb'] }) }), { action: 'use', path: '/opt/pgb' });
    const plan = pgbouncerPlan({ env: { PGBOUNCER_PATH: '/nowhere' }, host: host({ root: true, apt: true }) });
    assert.equal(plan.action, 'fail');
    assert.match(plan.message, /PGBOUNCER_PATH=\/nowhere/);
  });

  it('installs as root with apt-get, and otherwise says what to install', () => {
    assert.deepEqual(pgbouncerPlan({ env: {}, host: host({ root: true, apt: true }) }), { action: 'install', path: DEFAULT_PGBOUNCER_PATH });
    assert.match(pgbouncerPlan({ env: {}, host: host({ apt: true }) }).message, /sudo apt-get install -y pgbouncer/);
    assert.match(pgbouncerPlan({ env: {}, host: host({ root: true }) }).message, /package `pgbouncer`/);
  });
});

describe('ensurePgbouncer', () => {
  it('installs Debian\'s package, retrying once after apt-get update', async () => {
    const machine = host({ root: true, apt: true });
    const supervisor = recordingSupervisor([100, 0, 0], (args) => {
      if (args[0] === 'install' && supervisor.runs.length === 3) machine.isExecutable = (file) => file === DEFAULT_PGBOUNCER_PATH;
    });
    assert.equal(await ensurePgbouncer(supervisor, { env: {}, host: machine }), DEFAULT_PGBOUNCER_PATH);
    assert.deepEqual(supervisor.runs, ['/usr/bin/apt-get install -y pgbouncer', '/usr/bin/apt-get update', '/usr/bin/apt-get install -y pgbouncer']);
  });

  it('stops with one line when the install leaves no pgbouncer', async () => {
    await assert.rejects(ensurePgbouncer(recordingSupervisor([100, 0, 100]), { env: {}, host: host({ root: true, apt: true }) }), (error) => {
      assert.ok(error instanceof DevError);
      assert.match(error.message, /could not install pgbouncer/);
      return true;
    });
  });
});

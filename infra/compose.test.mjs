// node --test infra/compose.test.mjs  (npm test runs it)
// `docker compose up --scale scanner=3 --scale notifier=2` (README.md, Operations) must keep working: the
// workers have no fixed name and no fixed host port, and compose accepts the file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { COMPOSE_FILE, readCompose, scalingProblems } from './compose-file.mjs';

const WORKERS = ['scanner', 'engagement-poller', 'notifier'];

describe('docker-compose.yml', () => {
  it('lets every worker run as several replicas', () => {
    const { services } = readCompose();
    for (const worker of WORKERS) {
      assert.ok(services[worker], `${worker} is a service`);
      assert.deepEqual(scalingProblems(worker, services[worker]), []);
    }
  });

  it('tells a fixed name or host port from one compose can replicate', () => {
    assert.deepEqual(scalingProblems('a', { ports: ['4001'] }), []);
    assert.deepEqual(scalingProblems('a', { ports: [{ target: 4001 }] }), []);
    assert.deepEqual(scalingProblems('a', { ports: ['127.0.0.1:4001:4001'] }), ['a publishes host port 4001']);
    assert.deepEqual(scalingProblems('a', { ports: ['4001:4001'] }), ['a publishes host port 4001']);
    assert.deepEqual(scalingProblems('a', { ports: [{ target: 4001, published: '4001' }] }), ['a publishes host port 4001']);
    assert.deepEqual(scalingProblems('a', { container_name: 'a1' }), ['a has container_name a1']);
  });

  it('passes the optional queue console and Redis Cluster settings through, empty by default', () => {
    const env = readCompose()['x-env'];
    for (const name of ['ADMIN_USER', 'ADMIN_PASSWORD', 'REDIS_CLUSTER_NODES']) assert.equal(env[name], `\${${name}:-}`);
  });

  it('is accepted by `docker compose config` where the compose plugin is installed', (t) => {
    const version = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
    if (version.error || version.status !== 0) {
      // Said, not skipped: the checks above still ran; this one needs the plugin.
      t.diagnostic('docker compose is not installed here: the file was checked by the tests above only');
      return;
    }
    const config = spawnSync('docker', ['compose', '-f', COMPOSE_FILE, 'config', '--quiet'], { encoding: 'utf8' });
    assert.equal(config.status, 0, config.stderr);
  });
});

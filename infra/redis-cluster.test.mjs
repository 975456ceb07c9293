import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startRedisCluster } from './redis-cluster.mjs';

const cli = (port, ...args) => spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim();

test('startRedisCluster forms a three-master cluster covering every slot, and stop removes it', async () => {
  const cluster = await startRedisCluster({ redisServer: 'redis-server' });
  let stopped = false;
  try {
    assert.equal(cluster.nodes.split(',').length, 3);
    const [first] = cluster.ports;
    const info = cli(first, 'CLUSTER', 'INFO');
    assert.match(info, /cluster_state:ok/);
    assert.match(info, /cluster_slots_assigned:16384/);
    assert.match(info, /cluster_known_nodes:3/);
    // Every master holds slots: keys of different hash tags land on different nodes.
    const masters = cli(first, 'CLUSTER', 'NODES').split('\n').filter((line) => line.includes('master'));
    assert.equal(masters.length, 3);
    for (const line of masters) assert.match(line, /\d+-\d+$/);
    assert.equal(cli(first, 'CONFIG', 'GET', 'appendonly').split('\n')[1], 'yes');
    const dir = cli(first, 'CONFIG', 'GET', 'dir').split('\n')[1];
    await cluster.stop();
    stopped = true;
    assert.equal(existsSync(dir), false);
    assert.notEqual(cli(first, 'PING'), 'PONG');
  } finally {
    if (!stopped) await cluster.stop();
  }
}, 120_000);

// A private three-master Redis Cluster for the tests that `npm test` runs on a cluster: `redis-server` on free
// loopback ports, each node's files in its own directory under a fresh temporary one, removed when stopped.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports.mjs';

const MASTERS = 3;
// A cluster node also listens on its port + 10000 (the cluster bus), so both must be free and at most 65535.
const FIRST_PORT = 46390;

/** A free port whose bus port is free too, above FIRST_PORT and not in `taken`. */
async function freeNodePort(taken) {
  for (let port = FIRST_PORT; port < 55_000; port += 1) {
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await freePort(port)) === port && (await freePort(port + 10_000)) === port + 10_000) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

function cli(redisCli, port, args) {
  return spawnSync(redisCli, ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8', timeout: 30_000 });
}

async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (check()) return;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The arguments one node runs with; a node restarted with them comes back with its data (append-only file). */
export function nodeArgs(port, dir) {
  return [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--cluster-enabled', 'yes',
    '--cluster-config-file', path.join(dir, 'nodes.conf'),
    '--cluster-node-timeout', '5000',
    '--appendonly', 'yes',
    '--save', '',
    // BullMQ loses jobs when Redis evicts keys.
    '--maxmemory-policy', 'noeviction',
    '--dir', dir,
    '--daemonize', 'no',
  ];
}

/**
 * Starts three masters, joins them into one cluster (`redis-cli --cluster create`, no replicas) and waits until
 * every node reports `cluster_state:ok`. Resolves with `nodes` (`host:port,…`, for REDIS_CLUSTER_NODES) and `stop`,
 * which ends the nodes and removes their files. Throws (after stopping what it started) when the cluster does not form.
 */
export async function startRedisCluster({ redisServer, redisCli = 'redis-cli', log = () => undefined }) {
  const root = mkdtempSync(path.join(tmpdir(), 'hashwatch-redis-cluster-'));
  const children = [];
  const ports = [];
  const stop = async () => {
    await Promise.all(
      children.map((child) => new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGKILL');
      })),
    );
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < MASTERS; i += 1) {
      const port = await freeNodePort(new Set(ports.flatMap((taken) => [taken, taken + 10_000])));
      ports.push(port);
      const dir = path.join(root, String(port));
      mkdirSync(dir, { recursive: true });
      const out = openSync(path.join(dir, 'redis.log'), 'a');
      children.push(spawn(redisServer, nodeArgs(port, dir), { stdio: ['ignore', out, out] }));
      closeSync(out);
    }
    await until(() => ports.every((port) => cli(redisCli, port, ['PING']).stdout.trim() === 'PONG'), 15_000, 'the cluster nodes did not answer PING');
    const created = spawnSync(redisCli, ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8', timeout: 60_000 });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    await until(() => ports.every((port) => cli(redisCli, port, ['CLUSTER', 'INFO']).stdout.includes('cluster_state:ok')), 30_000, 'the cluster did not reach cluster_state:ok');
    log(`Redis Cluster of ${MASTERS} masters on ports ${ports.join(', ')}`);
    return { nodes: ports.map((port) => `127.0.0.1:${port}`).join(','), ports, stop };
  } catch (error) {
    const logs = ports.map((port) => {
      try {
        return readFileSync(path.join(root, String(port), 'redis.log'), 'utf8').split('\n').slice(-5).join('\n');
      } catch {
        return '';
      }
    });
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs.join('\n')}`, { cause: error });
  }
}

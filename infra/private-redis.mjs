// A private Redis in .data/redis, for machines with redis-server installed but not running.
import { mkdirSync } from 'node:fs';
import { freePort } from './ports.mjs';
import { instanceFiles, joinInstance, startInstance } from './private-instances.mjs';
import { probeRedis } from './service-probes.mjs';

// A stable preferred port keeps the instance's URL the same from run to run; any free port is taken
// when it is busy.
const PREFERRED_PORT = 63799;

/** @type {import('./private-instances.mjs').Instance} */
const REDIS = {
  name: 'redis',
  label: 'Redis',
  stopSignal: 'SIGTERM',
  urlFor: (port) => `redis://127.0.0.1:${port}`,
  probe: (url) => probeRedis(url),
};

/** Joins or starts the private Redis; resolves with its URL and its stop. */
export async function startPrivateRedis({ dataDir, log, redisServer }) {
  const joined = await joinInstance(REDIS, dataDir, log);
  if (joined) return joined;
  const { dir } = instanceFiles(dataDir, REDIS.name);
  mkdirSync(dir, { recursive: true });
  const port = await freePort(PREFERRED_PORT);
  const args = [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--appendonly', 'yes',
    // BullMQ loses jobs when Redis evicts keys.
    '--maxmemory-policy', 'noeviction',
    '--dir', dir,
    '--daemonize', 'no',
  ];
  return startInstance(REDIS, dataDir, { command: redisServer, args, port, timeoutMs: 30_000 }, log);
}

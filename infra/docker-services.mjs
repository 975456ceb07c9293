// PostgreSQL and Redis from docker-compose.yml, for machines with a Docker engine and no local binaries.
import { spawnSync } from 'node:child_process';
import { DevError } from './errors.mjs';
import { redactUrl } from './output.mjs';
import { probePostgres, probeRedis, waitFor } from './service-probes.mjs';

/** `docker compose up -d` of `services` (`postgres`, `redis`); resolves once they answer, with their URLs and a stop. */
export async function startWithDocker({ root, services, env, log }) {
  log(`starting ${services.join(' and ')} with docker compose`);
  const up = spawnSync('docker', ['compose', 'up', '-d', '--wait', ...services], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (up.status !== 0) throw new DevError(`docker compose up -d ${services.join(' ')} failed (exit ${up.status ?? up.signal})`);
  // The ports and password docker-compose.yml publishes, with the same defaults.
  const password = encodeURIComponent(env.POSTGRES_PASSWORD ?? 'postgres');
  const result = {
    databaseUrl: `postgresql://postgres:${password}@127.0.0.1:${env.POSTGRES_PORT ?? 5432}/hashwatch`,
    redisUrl: `redis://127.0.0.1:${env.REDIS_PORT ?? 6379}`,
    stop: async () => {
      spawnSync('docker', ['compose', 'stop', ...services], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    },
  };
  if (services.includes('postgres')) {
    const ready = await waitFor(() => probePostgres(result.databaseUrl), { timeoutMs: 90_000 });
    if (!ready.ok) throw new DevError(`the postgres container does not answer on ${redactUrl(result.databaseUrl)} (${ready.detail})`);
  }
  if (services.includes('redis')) {
    const ready = await waitFor(() => probeRedis(result.redisUrl), { timeoutMs: 60_000 });
    if (!ready.ok) throw new DevError(`the redis container does not answer on ${result.redisUrl} (${ready.detail})`);
  }
  return result;
}

// npm run test:infra -- infra/compose.test.mjs  (npm test runs it)
// `docker compose up --scale scanner=3 --scale notifier=2` (docs/OPERATIONS.md, Scaling) must keep working: the
// workers have no fixed name and no fixed host port, and compose accepts the file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { COMPOSE_FILE, readCompose, scalingProblems } from './compose-file.mjs';
import { ROOT } from './workspaces.mjs';
import { appPools, COMPOSE_INI, ONE_OFF_CONNECTIONS, POSTGRES_USABLE_CONNECTIONS, readIni } from './pgbouncer-config.mjs';

const WORKERS = ['scanner', 'engagement-poller', 'notifier'];
const APPS = ['gateway', ...WORKERS];
/** The replicas docs/OPERATIONS.md's scaling example runs (`--scale scanner=3 --scale notifier=2`). */
const SCALED = { gateway: 1, scanner: 3, 'engagement-poller': 1, notifier: 2 };

/** A compose database URL's parts that matter: where it goes, as whom, which database. */
function target(url) {
  const parsed = new URL(url);
  return { host: `${parsed.hostname}:${parsed.port}`, user: parsed.username, password: parsed.password, database: parsed.pathname };
}
const services = () => readCompose().services;
const dependsOn = (service) => Object.keys(service.depends_on ?? {});

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

  it('runs every app through PgBouncer, with DATABASE_DIRECT_URL on PostgreSQL itself', () => {
    const { services } = readCompose();
    for (const app of APPS) {
      const env = services[app].environment;
      assert.equal(target(env.DATABASE_URL).host, 'pgbouncer:6432', `${app}: DATABASE_URL through PgBouncer`);
      assert.equal(target(env.DATABASE_DIRECT_URL).host, 'postgres:5432', `${app}: DATABASE_DIRECT_URL on PostgreSQL (so it knows DATABASE_URL is pooled)`);
      assert.deepEqual({ ...target(env.DATABASE_URL), host: '' }, { ...target(env.DATABASE_DIRECT_URL), host: '' }, `${app}: the same user and database both ways`);
      assert.equal(services[app].depends_on.pgbouncer?.condition, 'service_healthy', `${app}: starts once PgBouncer answers`);
    }
    const pgbouncer = services.pgbouncer;
    assert.equal(path.join(pgbouncer.build.context, pgbouncer.build.dockerfile ?? 'Dockerfile'), path.join('infra', 'pgbouncer', 'Dockerfile'));
    for (const copied of readFileSync(path.join(ROOT, pgbouncer.build.context, 'Dockerfile'), 'utf8').matchAll(/^COPY (?:--\S+ )*(\S+) /gm)) {
      assert.ok(existsSync(path.join(ROOT, pgbouncer.build.context, copied[1])), `the build context holds ${copied[1]}`);
    }
    assert.equal(pgbouncer.environment.DATABASE_DIRECT_URL, services.scanner.environment.DATABASE_DIRECT_URL, 'PgBouncer logs in as the apps do');
    assert.equal(pgbouncer.depends_on.postgres?.condition, 'service_healthy');
    assert.ok(pgbouncer.healthcheck?.test?.includes('pg_isready'), 'PgBouncer has a health check');
    assert.deepEqual(pgbouncer.ports ?? [], [], 'PgBouncer publishes no host port');
  });

  it('migrates (and runs the admin CLI) on PostgreSQL directly, and `up -d postgres redis` needs no PgBouncer', () => {
    const { services } = readCompose();
    assert.equal(target(services.migrate.environment.DATABASE_URL).host, 'postgres:5432');
    assert.equal(services.migrate.environment.DATABASE_URL, services.migrate.environment.DATABASE_DIRECT_URL);
    assert.ok(!dependsOn(services.migrate).includes('pgbouncer'), 'the migration does not wait for PgBouncer');
    assert.deepEqual([...dependsOn(services.postgres), ...dependsOn(services.redis)], [], 'postgres and redis start alone');
  });

  it('sizes PgBouncer for every app replica\'s pool, within PostgreSQL\'s max_connections', () => {
    const settings = readIni(COMPOSE_INI).pgbouncer;
    const pools = Object.fromEntries(APPS.map((app) => [app, appPools(app)]));
    const clients = APPS.reduce((sum, app) => sum + SCALED[app] * pools[app].pooled, 0);
    assert.ok(Number(settings.max_client_conn) >= clients, `max_client_conn ${settings.max_client_conn} holds the ${clients} pooled connections of the scaled suite`);
    const direct = APPS.reduce((sum, app) => sum + SCALED[app] * pools[app].direct, 0);
    const server = Number(settings.max_db_connections) + direct + ONE_OFF_CONNECTIONS;
    assert.ok(server <= POSTGRES_USABLE_CONNECTIONS, `PgBouncer's ${settings.max_db_connections} + ${direct} direct + ${ONE_OFF_CONNECTIONS} one-off = ${server} > ${POSTGRES_USABLE_CONNECTIONS}`);
    assert.ok(Number(services().pgbouncer.ulimits.nofile.soft) > Number(settings.max_client_conn) + Number(settings.max_db_connections), 'descriptors for every client and server connection');
  });

  it('is accepted by `docker compose config` where the compose plugin is installed', () => {
    const version = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
    if (version.error || version.status !== 0) {
      // Said, not skipped: the checks above still ran; this one needs the plugin.
      console.log('docker compose is not installed here: the file was checked by the tests above only');
      return;
    }
    const config = spawnSync('docker', ['compose', '-f', COMPOSE_FILE, 'config', '--quiet'], { encoding: 'utf8' });
    assert.equal(config.status, 0, config.stderr);
  });
});

// npm run test:infra -- infra/pgbouncer-config.test.mjs  (npm test runs it)
// The PgBouncer that docker compose and infra/k8s/ run (infra/pgbouncer/): its two configs agree but for sizing,
// pool in transaction mode and apply the session timeouts the apps cannot send through it; the image's entrypoint
// turns DATABASE_DIRECT_URL into a config and a user list; and Debian's PgBouncer runs with them.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { COMPOSE_INI, connectQuerySettings, databaseOptions, ENTRYPOINT, K8S_INI, readIni } from './pgbouncer-config.mjs';
import { pgbouncerPlan } from './pgbouncer.mjs';
import { freePort } from './ports.mjs';

/** Settings the two files may set apart: how many connections, sized for one compose host or two cluster replicas. */
const SIZING = ['max_client_conn', 'default_pool_size', 'reserve_pool_size', 'max_db_connections'];
/** Session settings the apps send at connect time (packages/db): PgBouncer ignores them, connect_query applies them. */
const SESSION_SETTINGS = ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout'];

const scratch = mkdtempSync(path.join(os.tmpdir(), 'hw-pgbouncer-config-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs entrypoint.sh with `env`, PgBouncer replaced by `binary`; returns its exit status and output. */
function entrypoint(env, binary = '/bin/cat') {
  const runDir = mkdtempSync(path.join(scratch, 'run-'));
  const result = spawnSync('bash', [ENTRYPOINT], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, PGBOUNCER_TEMPLATE: COMPOSE_INI, PGBOUNCER_RUN_DIR: runDir, PGBOUNCER_BIN: binary, ...env },
  });
  return { ...result, runDir };
}

describe('infra/pgbouncer/pgbouncer.ini and infra/k8s/base/pgbouncer.ini', () => {
  const compose = readIni(COMPOSE_INI);
  const k8s = readIni(K8S_INI);

  it('agree on every setting but how many connections', () => {
    assert.deepEqual(k8s.databases, compose.databases);
    const without = (settings) => Object.fromEntries(Object.entries(settings).filter(([key]) => !SIZING.includes(key)));
    assert.deepEqual(without(k8s.pgbouncer), without(compose.pgbouncer));
    for (const key of SIZING) assert.ok(Number(compose.pgbouncer[key]) > 0 && Number(k8s.pgbouncer[key]) > 0, `${key} is set in both`);
  });

  for (const [name, ini] of Object.entries({ compose, k8s })) {
    it(`pools transactions of one database behind SCRAM, and bounds the server connections (${name})`, () => {
      const settings = ini.pgbouncer;
      assert.equal(settings.pool_mode, 'transaction');
      assert.equal(settings.auth_type, 'scram-sha-256');
      assert.equal(settings.auth_file, '@RUN_DIR@/userlist.txt');
      assert.equal(settings.listen_port, '6432');
      assert.equal(settings.server_reset_query, '');
      assert.ok(Number(settings.max_db_connections) >= Number(settings.default_pool_size) + Number(settings.reserve_pool_size), 'the reserve fits under max_db_connections');
      assert.ok(Number(settings.query_wait_timeout) > 0 && Number(settings.query_wait_timeout) <= 30, 'a query never waits minutes for a server connection');
      assert.deepEqual(Object.keys(ini.databases), ['@SERVER_DB@']);
      const options = databaseOptions(ini.databases['@SERVER_DB@']);
      assert.deepEqual({ host: options.host, port: options.port, dbname: options.dbname }, { host: '@SERVER_HOST@', port: '@SERVER_PORT@', dbname: '@SERVER_DB@' });
    });

    it(`applies every session setting it ignores at connect time on each server connection (${name})`, () => {
      const ignored = ini.pgbouncer.ignore_startup_parameters.split(',').map((entry) => entry.trim());
      const applied = connectQuerySettings(databaseOptions(ini.databases['@SERVER_DB@']).connect_query);
      for (const setting of SESSION_SETTINGS) {
        assert.ok(ignored.includes(setting), `${setting} is accepted (and ignored) at connect time`);
        assert.ok(Number(applied[setting]) > 0, `${setting} is set by connect_query`);
      }
    });
  }
});

describe('infra/pgbouncer/entrypoint.sh', () => {
  it('fills the server in and writes the user list, escapes decoded and quotes doubled', () => {
    const run = entrypoint({ DATABASE_DIRECT_URL: 'postgresql://hash%2Dwatch:p%40ss%22w%25rd@db.internal:6543/hashwatch?sslmode=prefer' });
    assert.equal(run.status, 0, run.stderr);
    const ini = readIni(path.join(run.runDir, 'pgbouncer.ini'));
    assert.equal(run.stdout, readFileSync(path.join(run.runDir, 'pgbouncer.ini'), 'utf8'), 'PgBouncer is given the rendered file');
    assert.doesNotMatch(run.stdout, /@[A-Z_]+@/);
    assert.deepEqual(Object.keys(ini.databases), ['hashwatch']);
    const options = databaseOptions(ini.databases.hashwatch);
    assert.deepEqual({ host: options.host, port: options.port, dbname: options.dbname }, { host: 'db.internal', port: '6543', dbname: 'hashwatch' });
    assert.equal(ini.pgbouncer.auth_file, `${run.runDir}/userlist.txt`);
    assert.equal(readFileSync(path.join(run.runDir, 'userlist.txt'), 'utf8'), '"hash-watch" "p@ss""w%rd"\n');
  });

  it('takes PostgreSQL\'s port when the URL names none', () => {
    const run = entrypoint({ DATABASE_DIRECT_URL: 'postgres://u:pw@postgres/hashwatch' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(databaseOptions(readIni(path.join(run.runDir, 'pgbouncer.ini')).databases.hashwatch).port, '5432');
  });

  for (const [url, reason] of [
    [undefined, /DATABASE_DIRECT_URL is not set/],
    ['postgresql://u@postgres:5432/hashwatch', /has no password/],
    ['mysql://u:secret-pw@postgres/hashwatch', /is not postgresql:/],
    ['postgresql://u:secret-pw@postgres:5432/hash;watch', /database name/],
  ]) {
    it(`refuses ${url ?? 'no URL'} without starting PgBouncer or printing the password`, () => {
      const run = entrypoint(url === undefined ? {} : { DATABASE_DIRECT_URL: url });
      assert.equal(run.status, 64);
      assert.match(run.stderr, reason);
      assert.equal(run.stdout, '');
      assert.doesNotMatch(run.stderr, /secret-pw/);
    });
  }
});

describe('Debian\'s PgBouncer with the compose config', () => {
  const SERVER = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  let child;
  afterAll(() => child?.kill('SIGTERM'));

  it('lets the listed user in with its password only, and sets the session timeouts on its server connections', async () => {
    const plan = pgbouncerPlan();
    if (plan.action !== 'use') {
      // Said, not skipped: the checks above still ran; this one needs the binary (`npm test` installs it).
      console.log(`PgBouncer is not installed here: ${plan.message ?? plan.path}`);
      return;
    }
    const port = await freePort(16432);
    const dir = mkdtempSync(path.join(scratch, 'live-'));
    const template = path.join(dir, 'pgbouncer.ini');
    writeFileSync(template, readFileSync(COMPOSE_INI, 'utf8').replace(/^listen_addr = .*$/m, 'listen_addr = 127.0.0.1').replace(/^listen_port = .*$/m, `listen_port = ${port}`));
    // PgBouncer refuses to run as root: then the entrypoint runs as the package's `postgres` user.
    const asUser = process.getuid?.() === 0 ? Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()) : undefined;
    const asGroup = asUser === undefined ? undefined : Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    if (asUser !== undefined) {
      chmodSync(scratch, 0o755);
      chmodSync(template, 0o644);
      chownSync(dir, asUser, asGroup);
    }
    const database = SERVER.pathname.slice(1) || 'postgres';
    const password = 'pw"with@odd%chars';
    const direct = new URL(SERVER);
    direct.username = SERVER.username || 'postgres';
    direct.password = encodeURIComponent(password);
    let log = '';
    child = spawn('bash', [ENTRYPOINT], {
      env: { PATH: process.env.PATH, PGBOUNCER_TEMPLATE: template, PGBOUNCER_RUN_DIR: path.join(dir, 'run'), PGBOUNCER_BIN: plan.path, DATABASE_DIRECT_URL: direct.toString() },
      ...(asUser === undefined ? {} : { uid: asUser, gid: asGroup }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => { log += chunk; });
    const through = new URL(direct);
    through.hostname = '127.0.0.1';
    through.port = String(port);
    const connect = async (url) => {
      const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 2_000, statement_timeout: 1_000 });
      client.on('error', () => undefined);
      await client.connect();
      return client;
    };
    let client;
    for (let attempt = 0; !client; attempt += 1) {
      try {
        client = await connect(through);
      } catch (error) {
        if (attempt >= 50) throw new Error(`PgBouncer did not let the user in: ${error.message}\n${log}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    try {
      const applied = connectQuerySettings(databaseOptions(readIni(COMPOSE_INI).databases['@SERVER_DB@']).connect_query);
      const { rows: [where] } = await client.query('SELECT current_database() AS db');
      assert.equal(where.db, database);
      for (const setting of SESSION_SETTINGS) {
        const { rows: [shown] } = await client.query('SELECT setting FROM pg_settings WHERE name = $1', [setting]);
        assert.equal(shown.setting, applied[setting], `${setting} is connect_query's ${applied[setting]} ms, not the 1 s this client asked for (ignored)`);
      }
    } finally {
      await client.end();
    }
    const wrong = new URL(through);
    wrong.password = 'not-the-password';
    await assert.rejects(connect(wrong), /authentication failed/);
  });
});
